// Bulk issuance of cash receipts: each item gets exactly what its own POST /v1/cashReceipts/issue
// would answer, only accepted receipts are charged, a retried bulk (sequential or concurrent)
// acts once, bulks are isolated by account and environment, and the completion event is
// recorded once the authority decided every receipt.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  createMerchantAccount,
  issueReceipt,
  receiptBody,
  request,
  type MerchantAccount,
} from '../cash-receipts/helpers.ts';

let app: TestApp;
let merchant: MerchantAccount;

const PRICE = 10;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TEST_SIGNUP_POINTS: '300' } });
  merchant = await createMerchantAccount(app, 'Bulk merchant');
  await app.platform.points.grant({ accountId: merchant.accountId, environment: 'test',
    points: 100_000 });
});
afterAll(async () => {
  await app?.close();
});

const reference = (prefix = 'bulk') => `${prefix}-${randomUUID()}`;

type Item = { clientReferenceId: string; supplierKey: string; document: unknown };
type Outcome = { index: number; issuanceKey: string | null;
  error: { status: number; code: string; message: string } | null };

function bulkIssue(key: string, items: unknown, bulkReference?: string) {
  const headers: Record<string, string> = {};
  if (bulkReference !== undefined) headers['service-client-reference-id'] = bulkReference;
  return app.server.inject(request(key, 'POST', '/v1/cashReceipts:bulkIssue',
    { body: { items }, headers }));
}

const balance = async (accountId = merchant.accountId) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

const good = (supplierKey = merchant.supplierKey): Item => ({
  clientReferenceId: reference('receipt'), supplierKey, document: receiptBody() });

describe('happy', () => {
  it('accepts the good receipts of a bulk of 100, refuses each bad one with its single ' +
    'request\'s answer, and charges only the accepted', async () => {
    const bad: Item[] = [
      { ...good(), document: receiptBody({ totalAmount: 1 }) },
      { ...good(), document: receiptBody({ usage: 'GIFT' }) },
      { ...good(), document: receiptBody({ identityNumber: undefined }) },
      { ...good(), supplierKey: 'sup_doesNotExist000000000' },
      { ...good(), clientReferenceId: 'x'.repeat(256) },
      { ...good(), document: [1, 2, 3] },
      { ...good(), document: receiptBody({ itemName: '<img src=x onerror=alert(1)>\u202e' }) },
    ];
    const items: Item[] = Array.from({ length: 100 }, () => good());
    const badAt = [0, 13, 27, 50, 64, 88, 99];
    badAt.forEach((position, index) => { items[position] = bad[index]!; });
    const before = await balance();
    const response = await bulkIssue(merchant.key, items, reference());
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json() as { bulkId: string; items: Outcome[]; acceptedCount: number };
    let refused = 0;
    for (const position of badAt) {
      const item = items[position]!;
      const single = await issueReceipt(app, merchant.key, item.supplierKey, item.document,
        item.clientReferenceId);
      if (single.statusCode === 202) {
        // Accepted alone too: the bulk accepted it, and this request replays it.
        expect(body.items[position]!.issuanceKey).toBe(single.json().issuanceKey);
        continue;
      }
      refused += 1;
      expect(body.items[position]!.issuanceKey).toBeNull();
      expect(body.items[position]!.error).toEqual({ status: single.statusCode,
        code: single.json().code, message: single.json().message });
    }
    expect(refused).toBeGreaterThanOrEqual(6);
    expect(body.acceptedCount).toBe(100 - refused);
    expect(await balance()).toBe(before - (100 - refused) * PRICE);
    await expectLedgerConsistent(app.platform, merchant.accountId, 'test');
  });

  it('refuses the receipts the points no longer cover with the single issue\'s error',
    async () => {
    const poor = await createMerchantAccount(app, 'Poor merchant');
    const response = await bulkIssue(poor.key, Array.from({ length: 40 },
      () => good(poor.supplierKey)), reference());
    const outcomes = (response.json() as { items: Outcome[] }).items;
    expect(outcomes.filter((item) => item.issuanceKey !== null)).toHaveLength(30);
    for (const refused of outcomes.filter((item) => item.issuanceKey === null)) {
      expect(['PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT'])
        .toContain(refused.error!.code);
    }
    expect(await balance(poor.accountId)).toBe(0);
    await expectLedgerConsistent(app.platform, poor.accountId, 'test');
  });

  it('answers retried and concurrent identical bulks with one bulk, acting once', async () => {
    const bulkReference = reference();
    const items = Array.from({ length: 10 }, () => good());
    const before = await balance();
    const [a, b] = await Promise.all([bulkIssue(merchant.key, items, bulkReference),
      bulkIssue(merchant.key, items, bulkReference)]);
    expect(a!.statusCode).toBe(202);
    expect(b!.json()).toEqual(a!.json());
    const again = await bulkIssue(merchant.key, items, bulkReference);
    expect(again.json()).toEqual(a!.json());
    expect(await balance()).toBe(before - 10 * PRICE);
    const other = await bulkIssue(merchant.key, items.slice(1), bulkReference);
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('records the completion event once every receipt is decided', async () => {
    const response = await bulkIssue(merchant.key, [good(), good()], reference());
    const { bulkId } = response.json() as { bulkId: string };
    const bulk = await pollUntil(async () => (await app.server.inject(request(merchant.key,
      'GET', `/v1/cashReceipts/bulks/${bulkId}`))).json(),
    (seen) => seen.status === 'COMPLETED');
    expect(bulk.counts.ACCEPTED).toBe(0);
    const completion = app.cashReceipts.dueWork
      .find((work) => work.name === 'cash-receipt-bulk-completion')!;
    await Promise.all([completion.runBatch(), completion.runBatch()]);
    const events = await app.platform.database.pool.query(`select data from webhook_events
      where type = 'CASH_RECEIPT_BULK_COMPLETED' and data->>'bulkId' = $1`, [bulkId]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].data).toMatchObject({ bulkId, acceptedCount: 2 });
  });
});

describe('errors', () => {
  it('answers 400 for 0 and 101 items and for a missing bulk reference id', async () => {
    const before = await balance();
    expect((await bulkIssue(merchant.key, [], reference())).statusCode).toBe(400);
    expect((await bulkIssue(merchant.key, Array.from({ length: 101 }, () => good()),
      reference())).statusCode).toBe(400);
    expect((await bulkIssue(merchant.key, [good()])).statusCode).toBe(400);
    expect(await balance()).toBe(before);
  });
});

describe('security', () => {
  it('hides a bulk from other accounts and from the live key', async () => {
    const response = await bulkIssue(merchant.key, [good()], reference());
    const { bulkId } = response.json() as { bulkId: string };
    const other = await createMerchantAccount(app, 'Other merchant');
    for (const key of [other.key, merchant.liveKey]) {
      const got = await app.server.inject(request(key, 'GET', `/v1/cashReceipts/bulks/${bulkId}`));
      expect(got.statusCode).toBe(404);
      const listed = await app.server.inject(request(key, 'GET', '/v1/cashReceipts/bulks'));
      expect(listed.json().bulks).toEqual([]);
    }
  });
});
