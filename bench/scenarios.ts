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
  // Rate-limited operations the scenario calls; the harness lifts their limits.
  operations: readonly string[];
  // Each autocannon connection cycles through these requests in order.
  buildRequests(context: ScenarioContext): ScenarioRequest[];
};

export function basicAuth(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
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
];
