// The benchmark scenarios, run in order by bench/run.ts. To add one, append a definition: its
// requests are built once before the run (so the load generator does no work per request), and
// the operations it names get a rate limit high enough never to throttle the benchmark.
import { seoulDate } from '../src/domain/business-days.ts';

export type ScenarioContext = {
  // Test keys of distinct accounts, so authentication and rate limiting see many keys.
  keys: readonly string[];
  // The live keys of the same accounts, with live points.
  liveKeys: readonly string[];
  // Test keys with a registered issuer (a certificate included), for scenarios that issue tax
  // invoices; empty unless a scenario asks for suppliers.
  suppliers: readonly { key: string; supplierKey: string }[];
  // Test keys with a registered issuer without a certificate (the merchant of cash receipts);
  // empty unless a scenario asks for merchants.
  merchants: readonly { key: string; supplierKey: string }[];
};

export type ScenarioRequest = {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  // Send a Service-Client-Reference-Id no other request of the benchmark uses. Every
  // REFERENCE_ID_SLOT in the body is replaced by it too (a bulk's items take it with their
  // position as their own reference ids).
  uniqueReferenceId?: boolean;
};

// Where a request's unique reference id goes in its body.
export const REFERENCE_ID_SLOT = '{{referenceId}}';
// The documents of one bulk in the bulk scenario: the most a bulk takes.
const BULK_DOCUMENTS = 100;

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
  // The goal for its 95th percentile, judged on p97.5 (bench/report.ts says why).
  p95MsMax?: number;
  // The goal for its throughput in requests per second, judged on the autocannon runs (the
  // most the server answers with every connection kept busy).
  requestsPerSecondMin?: number;
  // Also measured at this steady arrival rate (bench/open-loop.ts), where its latency goals are
  // judged: a goal of a rate and a latency together asks for that latency at that rate.
  steadyRatePerSecond?: number;
  // Needs test keys with registered issuers (ScenarioContext.suppliers).
  suppliers?: boolean;
  // Needs test keys with a registered merchant (ScenarioContext.merchants).
  merchants?: boolean;
  // Makes tax invoices or cash receipts: on PostgreSQL the report also says how fast the
  // workers of the same process signed (approved) and transmitted them during the timed runs,
  // and what was left waiting.
  makesDocuments?: 'taxInvoices' | 'cashReceipts';
  // The goal that the workers keep up with what is accepted: the documents still waiting to be
  // signed (approved) when the timed runs of a phase end are at most this many seconds of the
  // documents accepted meanwhile. A backlog that grows run after run fails it.
  backlogSecondsMax?: number;
  // Connections for this scenario instead of the run's --connections.
  connections?: number;
  // Needs the generated profile store (PostgreSQL only; bench/profile-dataset.ts).
  profileStore?: boolean;
  // Runs against the peer (Stoplight Prism mocking our OpenAPI document) instead of etax, and
  // is compared with the named etax scenario, which should answer ratioMin times its req/s.
  peer?: { comparesWith: string; ratioMin: number };
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

// Search queries over the generated profiles (src/cli/profiles.ts § generate): common words of
// business names (주식회사 is in most corporate names), one- and two-syllable names, full names,
// number prefixes, a full number, and queries that match nothing.
const SEARCH_QUERIES = [
  '주식회사', '건설', '한빛', '세탁소', '도윤', '김', '이도윤', '별빛건설', '한빛세탁소',
  '하늘솔루션', '175-24', '12', '1752444443', '뷁뷁', '별빛 건설', '푸른',
];

const RETRIEVAL = 'GET /v1/businessProfiles/999-99-00005';

// The issuer every bench supplier is registered as (bench/suppliers.ts).
export const BENCH_SUPPLIER = { identificationNumber: '1234567891',
  organizationName: '주식회사 이택스' };
// The issuer every bench merchant (cash receipts) is registered as, without a certificate.
export const BENCH_MERCHANT = { identificationNumber: '2208162517',
  organizationName: '카페 이택스' };

// A two-item invoice written today (Asia/Seoul), from the bench supplier to a sandbox recipient.
function benchInvoice() {
  const date = seoulDate(new Date());
  const item = (name: string, supplyCost: number) =>
    ({ date, name, quantity: 1, unitPrice: supplyCost, supplyCost, tax: supplyCost / 10 });
  return {
    date, purpose: 'CLAIM',
    supplier: { ...BENCH_SUPPLIER, representativeName: '홍길동',
      manager: { email: 'tax@example.co.kr' } },
    supplied: { identificationNumber: '2208162517', organizationName: '주식회사 받는곳',
      representativeName: '이영희', managers: [{ email: 'account@example.com' }] },
    items: [item('클라우드 사용료', 50_000), item('기술 지원', 150_000)],
    description: '이용료',
  };
}

function retrievalRequests(keys: readonly string[]): ScenarioRequest[] {
  return keys.map((key) => ({
    method: 'GET',
    path: '/v1/businessProfiles/999-99-00005',
    headers: { authorization: basicAuth(key) },
  }));
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
    // Authentication, the number checks, a reservation, the sandbox profile and a capture,
    // rotating across every key so the per-key limit (lifted anyway) is not measured.
    name: RETRIEVAL,
    baselineFractionMin: 0.25,
    p99MsMax: 50,
    operations: ['businesses.profiles.retrieve'],
    buildRequests: ({ keys }) => retrievalRequests(keys),
  },
  {
    // Live keys search the profile store: 20 results a page, charged 9 points each. A latency
    // goal is measured below saturation: at 50 connections each query would mostly measure the
    // queue of the 49 others on two cores, not the search.
    name: 'GET /v1/businessProfiles?query=… (generated store, live keys, 10 connections)',
    p95MsMax: 50,
    connections: 10,
    profileStore: true,
    operations: ['businesses.profiles.search'],
    buildRequests: ({ liveKeys }) => liveKeys.flatMap((key, index) => {
      const query = SEARCH_QUERIES[index % SEARCH_QUERIES.length]!;
      return [{
        method: 'GET' as const,
        path: `/v1/businessProfiles?query=${encodeURIComponent(query)}&limit=20`,
        headers: { authorization: basicAuth(key) },
      }];
    }),
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
  {
    // Accepting a tax invoice: the schema and every validation rule, the Supplier-Key's issuer
    // and certificate, a reservation, one transaction that claims a fresh reference id, stores
    // the document and stages its job, and the capture. The workers of the same process sign and
    // transmit the accepted invoices meanwhile, as they would in a one-process deployment.
    name: 'POST /v1/taxInvoices/issue (accept: validate, claim reference id, stage job)',
    requestsPerSecondMin: 1_000,
    steadyRatePerSecond: 1_000,
    p99MsMax: 100,
    backlogSecondsMax: 2,
    suppliers: true,
    makesDocuments: 'taxInvoices',
    operations: ['taxInvoices.issue'],
    // Transmission waits out the cancel window (10 s by default), longer than a timed run; without
    // it the transmitted rate is what the workers can do, not the window.
    serverEnv: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' },
    buildRequests: ({ suppliers }) => {
      const body = JSON.stringify(benchInvoice());
      return suppliers.map(({ key, supplierKey }) => ({
        method: 'POST',
        path: '/v1/taxInvoices/issue',
        headers: { authorization: basicAuth(key), 'content-type': 'application/json',
          'supplier-key': supplierKey },
        body,
        uniqueReferenceId: true,
      }));
    },
  },
  {
    // Accepting a bulk of 100 tax invoices: each document goes through the single issue's
    // acceptance (so the issue scenario's work, 100 times), the bulk's reference id and its
    // outcomes are two more statements. At 10 bulks a second it is 1,000 invoices a second;
    // with --duration D it pushes 1,000 × D invoices through bulks (100 s for 100,000), and on
    // PostgreSQL the report says how many the workers signed and transmitted a second and what
    // was left waiting, as for the issue scenario.
    name: 'POST /v1/taxInvoices:bulkIssue (100 invoices per bulk)',
    steadyRatePerSecond: 10,
    p99MsMax: 300,
    backlogSecondsMax: 2,
    // Two bulks in flight are 200 documents being accepted: enough to keep the server busy.
    connections: 2,
    suppliers: true,
    makesDocuments: 'taxInvoices',
    operations: ['taxInvoices.bulkIssue', 'taxInvoices.issue'],
    serverEnv: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' },
    buildRequests: ({ suppliers }) => suppliers.map(({ key, supplierKey }) => ({
      method: 'POST',
      path: '/v1/taxInvoices:bulkIssue',
      headers: { authorization: basicAuth(key), 'content-type': 'application/json' },
      body: JSON.stringify({ items: Array.from({ length: BULK_DOCUMENTS }, (_, index) => ({
        clientReferenceId: `${REFERENCE_ID_SLOT}-${index}`, supplierKey,
        document: benchInvoice() })) }),
      uniqueReferenceId: true,
    })),
  },
  {
    // Accepting a cash receipt: the schema and the rules between fields, the replay lookup of its
    // reference id, the Supplier-Key's issuer, and one transaction that claims the reference id,
    // debits the price and stores the receipt, due for approval. The workers (of the same process,
    // or of --worker-processes) approve and transmit the accepted receipts meanwhile.
    name: 'POST /v1/cashReceipts/issue (accept: validate, claim reference id, debit, record)',
    requestsPerSecondMin: 1_000,
    steadyRatePerSecond: 1_000,
    p99MsMax: 100,
    backlogSecondsMax: 2,
    merchants: true,
    makesDocuments: 'cashReceipts',
    operations: ['cashReceipts.issue'],
    // The sandbox transmits 10 s after approval by default (the next day in production).
    serverEnv: { CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0' },
    buildRequests: ({ merchants }) => {
      const body = JSON.stringify({ tradeDate: seoulDate(new Date()), usage: 'INCOME_DEDUCTION',
        identityNumber: '010-1234-5678', taxation: 'TAXABLE', supplyCost: 10_000, tax: 1_000,
        serviceFee: 0, totalAmount: 11_000, itemName: '아메리카노 외 2건' });
      return merchants.map(({ key, supplierKey }) => ({
        method: 'POST',
        path: '/v1/cashReceipts/issue',
        headers: { authorization: basicAuth(key), 'content-type': 'application/json',
          'supplier-key': supplierKey },
        body,
        uniqueReferenceId: true,
      }));
    },
  },
  {
    // The same retrieval answered by the peer, last so it runs after every etax scenario.
    name: 'Prism peer: GET /v1/businessProfiles/999-99-00005',
    peer: { comparesWith: RETRIEVAL, ratioMin: 3 },
    operations: [],
    buildRequests: ({ keys }) => retrievalRequests(keys),
  },
];
