// The benchmark scenarios, run in order by bench/run.ts. To add one, append a definition: its
// requests are built once before the run (so the load generator does no work per request), and
// the operations it names get a rate limit high enough never to throttle the benchmark.

export type ScenarioContext = {
  // Test keys of distinct accounts, so authentication and rate limiting see many keys.
  keys: readonly string[];
};

export type ScenarioRequest = {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
};

export type Scenario = {
  name: string;
  // The scenario the others are compared against; exactly one has this.
  baseline?: boolean;
  // The goal for this scenario's throughput as a fraction of the baseline's.
  baselineFractionMin?: number;
  // The goal for this scenario's median latency, where latency is what matters.
  p50MsMax?: number;
  // The goal for this scenario's 99th-percentile latency.
  p99MsMax?: number;
  // Rate-limited operations the scenario calls; the harness lifts their limits.
  operations: readonly string[];
  // Environment variables the server needs for this scenario. The server is started once for
  // all scenarios, so these must not change what the other scenarios measure.
  serverEnv?: Readonly<Record<string, string>>;
  // Each autocannon connection cycles through these requests in order.
  buildRequests(context: ScenarioContext): ScenarioRequest[];
};

export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

// 100 distinct well-formed accounts: every one goes to the (sandbox) bank network and has a
// holder, so each request reserves and captures 5,000 points. bench/run.ts seeds every key with
// enough test points that no request is refused with 402.
function bulkHolderBody(): string {
  const accounts = Array.from({ length: 100 }, (_, index) => ({
    bankCode: index % 2 === 0 ? '004' : '088',
    accountNumber: String(1_000_000_000 + index),
  }));
  return JSON.stringify({ accounts });
}

export const SCENARIOS: readonly Scenario[] = [
  {
    // Fastify with our platform hooks and no database: the ceiling for this machine.
    name: 'GET /healthz',
    baseline: true,
    operations: [],
    buildRequests: () => [{ method: 'GET', path: '/healthz' }],
  },
  {
    // Authentication (cached), rate limiting and one balance read, rotating across every key.
    name: 'GET /v1/points',
    baselineFractionMin: 0.4,
    operations: ['points.retrieve'],
    buildRequests: ({ keys }) => keys.map((key) => ({
      method: 'GET',
      path: '/v1/points',
      headers: { authorization: basicAuth(key) },
    })),
  },
  {
    // Issue 3: authentication, the number checks, a reservation, the sandbox profile and a
    // capture, rotating across every key so the per-key limit (lifted anyway) is not measured.
    name: 'GET /v1/businessProfiles/999-99-00005',
    baselineFractionMin: 0.25,
    p99MsMax: 50,
    operations: ['businesses.profiles.retrieve'],
    buildRequests: ({ keys }) => keys.map((key) => ({
      method: 'GET',
      path: '/v1/businessProfiles/999-99-00005',
      headers: { authorization: basicAuth(key) },
    })),
  },
  {
    // 100 accounts per request against a sandbox bank that takes 100 ms per call: with 20 calls
    // at once that is 5 round trips, so the floor is about 500 ms; the goal leaves room for the
    // reservation, the capture and 50 concurrent requests sharing the process.
    name: 'POST /v1/bankAccountHolders:bulkInquire (100 accounts, bank 100 ms)',
    p50MsMax: 1_000,
    operations: ['bank.holders.bulkInquire'],
    serverEnv: { BANK_SANDBOX_LATENCY_MS: '100' },
    buildRequests: ({ keys }) => {
      const body = bulkHolderBody();
      return keys.map((key) => ({
        method: 'POST',
        path: '/v1/bankAccountHolders:bulkInquire',
        headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
        body,
      }));
    },
  },
];
