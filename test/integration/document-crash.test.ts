// Documents across processes: two `etax serve` processes with workers on one PostgreSQL.
// 1. The same reference id sent to both at once makes one document, reserved and charged once.
// 2. A worker killed with SIGKILL while its sandbox calls are in flight (each takes 3 s): once
//    its jobs run again (their expiry is moved into the past in the database instead of waited
//    out, and the jobs of the living process are handed out again as well, so documents are
//    worked twice at once), every document ends ISSUED with one PDF, one capture, one success
//    event, and the ledger has no drift.
import { describe, expect, it } from 'vitest';
import {
  CLUSTER_SKIP_REASON,
  clusterEnabled,
  sendJson,
  useCluster,
  type Cluster,
  type CreatedAccount,
} from '../helpers/cluster.ts';
import { expectConsistentSnapshot, ledgerSnapshot } from '../helpers/ledger-audit.ts';
import { pollUntil } from '../helpers/poll.ts';

const DOCUMENT_COUNT = 20;
const PRICE = 1_000;
const SERVER_ENV = { DOCUMENTS_SANDBOX_LATENCY_MS: '3000' };
const JOB_POLL = { attemptsMax: 600, intervalMs: 250 };
const REGISTRY_VIEW = { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '110111-0062432' };

let cluster: Cluster | undefined;
let account: CreatedAccount;

useCluster({ count: 2, env: SERVER_ENV }, (made) => {
  ({ cluster, account } = made);
});

async function issue(server: number, referenceId: string, body: unknown = REGISTRY_VIEW) {
  const response = await sendJson(cluster!.servers[server]!, account.keys.test, { method: 'POST',
    path: '/v1/documents/issue', body, headers: { 'service-client-reference-id': referenceId } });
  return response as { status: number; body: Record<string, string> };
}

const query = <T>(text: string, values?: unknown[]) => cluster!.query<T>(text, values);

type StatusCount = { status: string; count: number };
const statusCounts = () => query<StatusCount>(`select status, count(*)::int as count
  from document_issuances where account_id = $1 group by status order by status`,
[account.accountId]);

const expectNoDrift = () =>
  expectConsistentSnapshot(cluster!.assertions.db, account.accountId, 'test');

// An issued document's reservation is captured just after its status commits (captures are
// batched), so the ledger is read once nothing is left reserved rather than at the status change.
const reservationsSettled = (reservedBefore: number) => pollUntil(
  () => ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test'),
  (snapshot) => snapshot.reservedPoints === reservedBefore, JOB_POLL);

describe.skipIf(!clusterEnabled)(`documents across processes (${CLUSTER_SKIP_REASON})`, () => {
  it('makes one document of a reference id sent to two processes at once', async () => {
    const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
    const responses = await Promise.all(Array.from({ length: 10 }, (_, index) =>
      issue(index % 2, 'duplicate-across-processes')));
    expect(responses.map((response) => response.status)).toEqual(Array(10).fill(202));
    expect(new Set(responses.map((response) => response.body.issuanceKey)).size).toBe(1);
    expect(await query('select 1 from document_issuances where account_id = $1',
      [account.accountId])).toHaveLength(1);
    await pollUntil(statusCounts, (rows) => rows.length === 1 && rows[0]!.status === 'ISSUED',
      JOB_POLL);
    await reservationsSettled(before.reservedPoints);
    const after = await expectNoDrift();
    expect(before.postedPoints - after.postedPoints).toBe(PRICE);
    expect(after.reservedPoints).toBe(before.reservedPoints);
  }, 120_000);

  it('issues, charges and announces every document once when a worker dies mid-job',
    async () => {
      const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
      const accepted = await Promise.all(Array.from({ length: DOCUMENT_COUNT }, (_, index) =>
        issue(index % 2, `crash-${index}`)));
      expect(accepted.map((response) => response.status))
        .toEqual(Array(DOCUMENT_COUNT).fill(202));
      const keys = accepted.map((response) => response.body.issuanceKey!);
      await pollUntil(statusCounts, (rows) =>
        rows.some((row) => row.status === 'PROCESSING'), JOB_POLL);
      await cluster!.kill(0);
      await cluster!.restart(0);
      // What pg-boss does once the dead worker's jobs expire, without waiting for it.
      await query(`update pgboss.job set state = 'retry', start_after = now()
        where state = 'active' and name = 'documents-issuance'`);
      const final = await pollUntil(statusCounts, (rows) => rows.every((row) =>
        row.status === 'ISSUED'), JOB_POLL);
      expect(final).toEqual([{ status: 'ISSUED', count: DOCUMENT_COUNT + 1 }]);
      await reservationsSettled(before.reservedPoints);

      const pdfs = await query<{ count: number }>(`select count(*)::int as count
        from document_issuances where issuance_key = any($1) and pdf is not null
        and pdf_sha256 = encode(sha256(pdf), 'hex')`, [keys]);
      expect(pdfs).toEqual([{ count: DOCUMENT_COUNT }]);
      const captures = await query<{ count: number }>(`select count(*)::int as count
        from point_ledger_entries e join document_issuances d on d.reservation_id =
        e.reservation_id where d.issuance_key = any($1) and e.kind = 'capture'`, [keys]);
      expect(captures).toEqual([{ count: DOCUMENT_COUNT }]);
      const events = await query<{ issuance_key: string; count: number }>(`select
        data->>'issuanceKey' as issuance_key, count(*)::int as count from webhook_events
        where account_id = $1 and type = 'DOCUMENT_ISSUANCE_SUCCESS'
          and data->>'issuanceKey' = any($2) group by data->>'issuanceKey'`,
      [account.accountId, keys]);
      expect(events).toHaveLength(DOCUMENT_COUNT);
      expect(events.every((row) => row.count === 1)).toBe(true);

      const after = await expectNoDrift();
      expect(before.postedPoints - after.postedPoints).toBe(PRICE * DOCUMENT_COUNT);
      expect(after.reservedPoints).toBe(before.reservedPoints);
    }, 240_000);
});
