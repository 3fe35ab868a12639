// The topology operators deploy (docs/operations.md § Behind a load balancer and PgBouncer):
// HAProxy with /readyz health checks in front of three `etax serve` processes (two API-only,
// one worker), PgBouncer in transaction pooling mode in front of PostgreSQL
// (DATABASE_PREPARED_STATEMENTS=false, DATABASE_DIRECT_URL for the session-level locks), and
// Redis. A mixed load (profile lookups, tax invoices, cash receipts, documents) goes through
// the balancer; one API process is killed with SIGKILL, then the worker is stopped with SIGTERM
// and started again, while the load runs. Clients send a request again with the same reference
// id when the balancer answers 502/503/504 or the connection fails. Then: every accepted
// request reached its final state exactly once, no event was recorded twice, the ledger sums
// to the balances, no request failed while the worker drained, and HAProxy marked the killed
// process down.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditBalance } from '../../src/platform/points/store.ts';
import { SANDBOX_BUSINESS_NUMBERS } from '../../src/upstream/business-profiles/sandbox.ts';
import { receiptBody } from '../api/cash-receipts/helpers.ts';
import { invoiceBody } from '../api/tax-invoices/helpers.ts';
import { basicAuth } from '../helpers/app.ts';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  startCluster,
  type Cluster,
  type CreatedAccount,
} from '../helpers/cluster.ts';
import { ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { pollUntil } from '../helpers/poll.ts';
import { registerSupplier } from '../helpers/registered-supplier.ts';
import { freePorts, stopServerProcess } from '../helpers/server-process.ts';
import {
  backendStatuses,
  HAPROXY_BINARY,
  PGBOUNCER_BINARY,
  startHaproxy,
  startPgBouncer,
  temporaryFolder,
  type Daemon,
} from '../helpers/topology.ts';

const toolsInstalled = existsSync(HAPROXY_BINARY) && existsSync(PGBOUNCER_BINARY);
const enabled = clusterEnabled && toolsInstalled;
const SKIP_REASON = clusterEnabled
  ? 'needs haproxy and pgbouncer from Debian (.ci/run installs them)' : CLUSTER_SKIP_REASON;

// Processes 0 and 1 serve the API only; process 2 also works the jobs.
const WORKER = 2;
const KILLED = 0;
const SERVER_ENV = {
  DATABASE_PREPARED_STATEMENTS: 'false',
  TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
  TAX_INVOICE_SANDBOX_LATENCY_MS: '100',
  CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS: '100',
  CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0',
  DOCUMENTS_SANDBOX_LATENCY_MS: '100',
};
const CLIENTS = 4;
// Requests a client sends before the next; bounds the load whatever the phases take.
const PAUSE_MS = 100;
const REQUESTS_MAX = 400;
const ATTEMPTS_MAX = 30;
const JOB_POLL = { attemptsMax: 600, intervalMs: 250 };
const PRICES = { lookup: 90, invoice: 100, receipt: 10, document: 1_000 } as const;
const REGISTRY_VIEW = { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '110111-0062432' };

type Kind = keyof typeof PRICES;
const KINDS: Kind[] = ['lookup', 'invoice', 'receipt', 'document'];

let cluster: Cluster | null = null;
let pgbouncer: Daemon | null = null;
let haproxy: Daemon | null = null;
let folder: ReturnType<typeof temporaryFolder> | null = null;
let account: CreatedAccount;
let balancerUrl: string;
let statsPort: number;

beforeAll(async () => {
  if (!enabled) return;
  folder = temporaryFolder();
  const [pgbouncerPort, haproxyPort, haproxyStatsPort] = await freePorts(3);
  const postgres = new URL(process.env.DATABASE_URL!);
  pgbouncer = await startPgBouncer({ folder: folder.folder, port: pgbouncerPort!,
    postgresPort: Number(postgres.port || 5432), user: decodeURIComponent(postgres.username) });
  cluster = await startCluster({
    count: 3,
    env: SERVER_ENV,
    argsFor: (index) => (index === WORKER ? [] : ['--no-workers']),
    serverDatabaseUrl: (url) => {
      const pooled = new URL(url);
      pooled.port = String(pgbouncerPort);
      return pooled.toString();
    },
    directDatabaseUrl: true,
  });
  statsPort = haproxyStatsPort!;
  haproxy = await startHaproxy({ folder: folder.folder, port: haproxyPort!, statsPort,
    backends: cluster.servers.map((server, index) =>
      ({ name: `etax${index}`, port: Number(new URL(server.baseUrl).port) })) });
  balancerUrl = `http://127.0.0.1:${haproxyPort}`;
  await pollUntil(() => backendStatuses(statsPort),
    (statuses) => Object.values(statuses).filter((status) => status === 'UP').length === 3,
    JOB_POLL);
  account = await cluster.createAccount({ testSignupPoints: 10_000_000 });
}, 180_000);
afterAll(async () => {
  await haproxy?.stop();
  await cluster?.stop();
  await pgbouncer?.stop();
  folder?.remove();
});

type Answer = { status: number; body: Record<string, unknown> };

// One attempt through the balancer; a connection that fails is status 0.
async function send(method: string, path: string, body?: unknown,
  headers: Record<string, string> = {}): Promise<Answer> {
  try {
    const response = await fetch(`${balancerUrl}${path}`, {
      method,
      headers: { authorization: basicAuth(account.keys.test),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status,
      body: text.startsWith('{') ? JSON.parse(text) as Record<string, unknown> : {} };
  } catch {
    return { status: 0, body: {} };
  }
}

async function query<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return (await cluster!.assertions.pool.query(text, values)).rows as T[];
}


// What the load did: per kind, the requests accepted; and every attempt that failed.
type Failure = { kind: Kind; status: number; at: number };
type Load = { accepted: Record<Kind, number>; failures: Failure[]; lookupsRetried: number;
  sent: number; invoicesFoundByReference: number };

// The status by reference id of a tax invoice request whose answer was lost, asked through the
// balancer until it answers: true when it names the one document the request made.
async function acceptedOnce(referenceId: string): Promise<boolean> {
  for (let attemptNumber = 1; attemptNumber <= ATTEMPTS_MAX; attemptNumber += 1) {
    const status = await send('GET', '/v1/taxInvoices/issue/status?clientReferenceId=' +
      encodeURIComponent(referenceId));
    if (RETRIED.has(status.status)) {
      await sleep(200);
      continue;
    }
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body).toMatchObject({ clientReferenceId: referenceId,
      issuanceKeys: [status.body.issuanceKey] });
    return true;
  }
  throw new Error(`the status of ${referenceId} never answered`);
}

const SUCCESS: Record<Kind, number> = { lookup: 200, invoice: 200, receipt: 202, document: 202 };
const RETRIED = new Set([0, 502, 503, 504]);

// Runs the load until `stop()` resolves or REQUESTS_MAX requests were sent; each request is
// sent again, with the same reference id, while the balancer cannot answer it.
function runLoad(supplierKey: string, stop: Promise<void>): { load: Load; done: Promise<void> } {
  const load: Load = { accepted: { lookup: 0, invoice: 0, receipt: 0, document: 0 },
    failures: [], lookupsRetried: 0, sent: 0, invoicesFoundByReference: 0 };
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  function attempt(kind: Kind, referenceId: string): Promise<Answer> {
    const headers = { 'service-client-reference-id': referenceId };
    switch (kind) {
      case 'lookup':
        return send('GET', `/v1/businessProfiles/${SANDBOX_BUSINESS_NUMBERS.corporation}`);
      case 'invoice':
        return send('POST', '/v1/taxInvoices/issue', invoiceBody(),
          { ...headers, 'supplier-key': supplierKey });
      case 'receipt':
        return send('POST', '/v1/cashReceipts/issue', receiptBody(),
          { ...headers, 'supplier-key': supplierKey });
      case 'document':
        return send('POST', '/v1/documents/issue', REGISTRY_VIEW, headers);
    }
  }
  async function client(clientIndex: number) {
    for (let round = 0; !stopped && load.sent < REQUESTS_MAX; round += 1) {
      const kind = KINDS[(round + clientIndex) % KINDS.length]!;
      const referenceId = `topology-${clientIndex}-${round}`;
      load.sent += 1;
      for (let attemptNumber = 1; attemptNumber <= ATTEMPTS_MAX; attemptNumber += 1) {
        const answer = await attempt(kind, referenceId);
        // A tax invoice's reference id is never reusable, and a request sent again is not
        // replayed (docs/idempotency.md): sent again after its answer was lost, it is refused
        // because the first attempt was accepted, and the client learns that request's outcome
        // from the status by reference id, which must name exactly one document.
        const acceptedBefore = kind === 'invoice' && attemptNumber > 1 &&
          answer.status === 400 && answer.body.code === 'INVALID_REQUEST' &&
          String(answer.body.message).includes('was already used') &&
          await acceptedOnce(referenceId);
        if (acceptedBefore) load.invoicesFoundByReference += 1;
        if (answer.status === SUCCESS[kind] || acceptedBefore) {
          load.accepted[kind] += 1;
          break;
        }
        load.failures.push({ kind, status: answer.status, at: Date.now() });
        if (!RETRIED.has(answer.status)) {
          throw new Error(`${kind} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        }
        if (kind === 'lookup') load.lookupsRetried += 1;
        await sleep(200);
      }
      await sleep(PAUSE_MS);
    }
  }
  const done = Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)))
    .then(() => undefined);
  return { load, done };
}

describe.skipIf(!enabled)(`HAProxy, three processes and PgBouncer (${SKIP_REASON})`, () => {
  it('takes every request to its final state once through a crash and a drained restart',
    async () => {
      const t0 = Date.now();
      // When each phase ended and how many requests had been sent, printed at the end.
      const phases: string[] = [];
      let sent = () => 0;
      const mark = (what: string) => phases.push(`${what} ${Date.now() - t0} ms/${sent()}`);
      const supplierKey = await registerSupplier(send, JOB_POLL);
      mark('registered');
      const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
      let endLoad!: () => void;
      const run = runLoad(supplierKey, new Promise((resolve) => {
        endLoad = resolve;
      }));
      const { load, done } = run;
      sent = () => load.sent;
      // Waits until `count` requests were sent, or the load sent all it may.
      const progress = (count: number) => pollUntil(async () => load.sent,
        (sentCount) => sentCount >= Math.min(count, REQUESTS_MAX), JOB_POLL);

      await progress(40);
      mark('kill');
      await cluster!.kill(KILLED);
      const statuses = await pollUntil(() => backendStatuses(statsPort),
        (found) => found[`etax${KILLED}`]?.startsWith('DOWN') === true, JOB_POLL);
      expect(statuses[`etax${KILLED}`]).toMatch(/^DOWN/);

      mark('down');
      await progress(load.sent + 20);
      mark('sigterm');
      const drainStartedAt = Date.now();
      const exitCode = await stopServerProcess(cluster!.servers[WORKER]!,
        { exitWaitMs: 30_000 });
      expect(exitCode).toBe(0);
      mark('stopped');
      await cluster!.restart(WORKER);
      const drainEndedAt = Date.now();
      mark('restarted');
      await progress(load.sent + 20);
      endLoad();
      await done;
      mark('load done');

      // No request failed while the worker drained: HAProxy sent those it refused elsewhere.
      expect(load.failures.filter((failure) => failure.at >= drainStartedAt &&
        failure.at <= drainEndedAt)).toEqual([]);
      for (const kind of KINDS) expect(load.accepted[kind]).toBeGreaterThan(0);

      const final = await pollUntil(async () => ({
        invoices: await query<{ status: string; count: number; keys: number }>(`select status,
          count(*)::int as count, count(distinct client_reference_id)::int as keys
          from tax_invoices where account_id = $1 group by status`, [account.accountId]),
        receipts: await query<{ status: string; count: number }>(`select status,
          count(*)::int as count from cash_receipts where account_id = $1 group by status`,
        [account.accountId]),
        documents: await query<{ status: string; count: number }>(`select status,
          count(*)::int as count from document_issuances where account_id = $1
          group by status`, [account.accountId]),
      }), (found) => found.invoices.every((row) => row.status === 'TRANSMITTED') &&
        found.receipts.every((row) => row.status === 'TRANSMITTED') &&
        found.documents.every((row) => row.status === 'ISSUED'), JOB_POLL);
      mark('final');
      console.log(`topology phases (ms since start/requests sent): ${phases.join(', ')}; ` +
        `accepted ${JSON.stringify(load.accepted)}, failed attempts ${load.failures.length}, ` +
        `tax invoices found by reference id after a lost answer ${load.invoicesFoundByReference}`);
      expect(final.invoices).toEqual([{ status: 'TRANSMITTED', count: load.accepted.invoice,
        keys: load.accepted.invoice }]);
      expect(final.receipts).toEqual([{ status: 'TRANSMITTED', count: load.accepted.receipt }]);
      expect(final.documents).toEqual([{ status: 'ISSUED', count: load.accepted.document }]);

      const duplicates = await query(`select type, data->>'issuanceKey' as key, count(*)::int
        from webhook_events where account_id = $1 group by type, data->>'issuanceKey'
        having count(*) > 1`, [account.accountId]);
      expect(duplicates).toEqual([]);

      const after = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
      const audit = await auditBalance(cluster!.assertions.db,
        { accountId: account.accountId, environment: 'test' });
      expect(audit.ledgerPoints).toBe(after.postedPoints);
      expect(audit.openReservedPoints).toBe(after.reservedPoints);
      // Documents, invoices and receipts are charged exactly once each; a lookup whose answer
      // was lost with the killed process may have been charged without being answered.
      const exact = PRICES.invoice * load.accepted.invoice +
        PRICES.receipt * load.accepted.receipt + PRICES.document * load.accepted.document;
      const lookupsCharged = (before.postedPoints - after.postedPoints - exact) / PRICES.lookup;
      expect(Number.isInteger(lookupsCharged)).toBe(true);
      expect(lookupsCharged).toBeGreaterThanOrEqual(load.accepted.lookup);
      expect(lookupsCharged).toBeLessThanOrEqual(load.accepted.lookup + load.lookupsRetried);
    }, 240_000);
});
