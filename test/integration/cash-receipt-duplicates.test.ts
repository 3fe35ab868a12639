// Cash receipt requests with one Service-Client-Reference-Id that reach two `etax serve`
// processes at the same moment have one effect (docs/cash-receipts.md § Idempotency): both answer
// 202 with the same issuanceKey, one receipt is recorded and charged once; with different content
// one is accepted and the other is 409 IDEMPOTENCY_CONFLICT. Two partial cancellations that
// together exceed the rest, sent to the two processes at once: exactly one is accepted.
import { describe, expect, it } from 'vitest';
import { receiptBody } from '../api/cash-receipts/helpers.ts';
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

const ROUNDS = 10;
const PRICE = 10;
const JOB_POLL = { attemptsMax: 600, intervalMs: 250 };

let cluster: Cluster | undefined;
let account: CreatedAccount;
let supplierKey = '';

const call = (server: number, method: string, path: string, body?: unknown,
  headers?: Record<string, string>) =>
  sendJson(cluster!.servers[server]!, account.keys.test, { method, path, body, headers });
const query = <T>(text: string, values?: unknown[]) => cluster!.query<T>(text, values);

useCluster({ count: 2, env: { CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS: '0' } },
  async (made) => {
    ({ cluster, account } = made);
    const issuer = await call(0, 'POST', '/v1/issuers', { identificationNumber: '1234567891',
      organizationName: '카페 이택스', representativeName: '홍길동' });
    expect(issuer.status).toBe(201);
    supplierKey = issuer.body.supplierKey as string;
  });

const issueOn = (server: number, reference: string, body: unknown) => call(server, 'POST',
  '/v1/cashReceipts/issue', body, { 'supplier-key': supplierKey,
    'service-client-reference-id': reference });

describe.skipIf(!clusterEnabled)(`duplicates across processes (${CLUSTER_SKIP_REASON})`, () => {
  it('records and charges one receipt per reference id, replaying its key to both', async () => {
    const before = await ledgerSnapshot(cluster!.assertions.db, account.accountId, 'test');
    for (let round = 0; round < ROUNDS; round += 1) {
      const reference = `dup-${round}`;
      const [first, second] = await Promise.all([issueOn(0, reference, receiptBody()),
        issueOn(1, reference, receiptBody())]);
      expect([first!.status, second!.status]).toEqual([202, 202]);
      expect(first!.body.issuanceKey).toBe(second!.body.issuanceKey);
    }
    const rows = await query<{ count: number }>(`select count(*)::int as count from cash_receipts
      where account_id = $1 and client_reference_id like 'dup-%'`, [account.accountId]);
    expect(rows[0]!.count).toBe(ROUNDS);
    const after = await expectConsistentSnapshot(cluster!.assertions.db, account.accountId,
      'test');
    expect(before.postedPoints - after.postedPoints).toBe(PRICE * ROUNDS);
  }, 120_000);

  it('accepts one of two different requests with one reference id, 409 for the other',
    async () => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const reference = `conflict-${round}`;
        const answers = await Promise.all([issueOn(0, reference, receiptBody()),
          issueOn(1, reference, receiptBody({ itemName: '다른 품목' }))]);
        expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
        expect(answers.find((answer) => answer.status === 409)!.body.code)
          .toBe('IDEMPOTENCY_CONFLICT');
      }
    }, 120_000);

  it('lets exactly one of two concurrent over-cancellations win', async () => {
    const issued = await issueOn(0, 'cancel-race-original', receiptBody());
    const issuanceKey = issued.body.issuanceKey as string;
    await pollUntil(() => call(0, 'GET', `/v1/cashReceipts/${issuanceKey}`),
      (response) => response.body.status === 'TRANSMITTED', JOB_POLL);
    const part = { reason: 'TRANSACTION_CANCELED', supplyCost: 6_000, tax: 600, serviceFee: 0,
      totalAmount: 6_600 };
    const answers = await Promise.all([0, 1].map((server) => call(server, 'POST',
      `/v1/cashReceipts/${issuanceKey}/cancel`, part,
      { 'service-client-reference-id': `cancel-race-${server}` })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.code)
      .toBe('CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING');
    const original = await call(1, 'GET', `/v1/cashReceipts/${issuanceKey}`);
    expect(original.body).toMatchObject({ canceledAmount: 6_600, remainingAmount: 4_400 });
  }, 120_000);
});
