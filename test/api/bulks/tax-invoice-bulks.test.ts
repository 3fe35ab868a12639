// Bulk issuance of tax invoices: each item gets exactly what its own POST /v1/taxInvoices/issue
// would answer (compared item by item with the single endpoint), only accepted documents are
// charged, a retried bulk (sequential or concurrent) acts once, bad input is a 4xx, bulks are
// isolated by account and environment, a bulk taken over from a dead process finishes without
// issuing twice, and the completion event is recorded once.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../../src/platform/idempotency/claims.ts';
import { SANDBOX_STATUS_NUMBERS as N } from '../../../src/upstream/tax-authority/sandbox.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  createSupplierAccount,
  invoiceBody,
  issue,
  request,
  type SupplierAccount,
} from '../tax-invoices/helpers.ts';

let app: TestApp;
let account: SupplierAccount;

const PRICE = 100;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
    TEST_SIGNUP_POINTS: '5000' } });
  account = await createSupplierAccount(app, 'Bulk account');
  await app.platform.points.grant({ accountId: account.accountId, environment: 'test',
    points: 1_000_000 });
});
afterAll(async () => {
  await app?.close();
});

const reference = (prefix = 'bulk') => `${prefix}-${randomUUID()}`;

type Item = { clientReferenceId: string; supplierKey: string; document: unknown };
type Outcome = { index: number; clientReferenceId: string | null; issuanceKey: string | null;
  error: { status: number; code: string; message: string } | null };

function bulkIssue(key: string, items: unknown, bulkReference?: string, raw?: string) {
  const headers: Record<string, string> = {};
  if (bulkReference !== undefined) headers['service-client-reference-id'] = bulkReference;
  return app.server.inject(request(key, 'POST', '/v1/taxInvoices:bulkIssue',
    { body: raw ?? { items }, headers }));
}

const balance = async (accountId = account.accountId) =>
  (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance;

const good = (supplierKey = account.supplier.supplierKey): Item => ({
  clientReferenceId: reference('doc'), supplierKey, document: invoiceBody() });

async function documentsWith(references: string[]): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from tax_invoices where client_reference_id = any($1)',
    [references]);
  return result.rows[0].count as number;
}

describe('happy', () => {
  it('accepts the good documents of a bulk of 100, refuses each bad one with its single ' +
    'request\'s answer, and charges only the accepted', async () => {
    const usedBefore = reference('used');
    expect((await issue(app, account.key, account.supplier.supplierKey, invoiceBody(),
      usedBefore)).statusCode).toBe(200);
    const bad: Item[] = [
      { ...good(), document: invoiceBody({ supplied: undefined }) },
      { ...good(), document: invoiceBody({ date: 'not-a-date' }) },
      { ...good(), document: invoiceBody({ items: [] }) },
      { ...good(), supplierKey: 'sup_doesNotExist000000000' },
      { ...good(), supplierKey: 'not a key!' },
      { ...good(), clientReferenceId: usedBefore },
      { ...good(), clientReferenceId: '   ' },
      { ...good(), document: invoiceBody({ supplied: { ...invoiceBody().supplied,
        identificationNumber: '1234567890' } }) },
      { ...good(), document: 'a string, not an invoice' as unknown as object },
      { ...good(), document: invoiceBody({ description: '<script>alert(1)</script>\u0000' }) },
    ];
    const items: Item[] = Array.from({ length: 100 }, () => good());
    const badAt = [3, 11, 25, 40, 41, 57, 63, 78, 90, 99];
    badAt.forEach((position, index) => { items[position] = bad[index]!; });
    const before = await balance();
    const response = await bulkIssue(account.key, items, reference());
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json() as { bulkId: string; items: Outcome[]; acceptedCount: number;
      refusedCount: number; itemCount: number };
    expect(body.bulkId).toMatch(/^blk_/);
    expect(body.itemCount).toBe(100);
    expect(body.items.map((item) => item.index)).toEqual(items.map((_, index) => index));
    // Each refused item answers what its own request answers (sent now with a fresh reference
    // id where the reference id is not the point).
    for (const position of badAt) {
      const item = items[position]!;
      const outcome = body.items[position]!;
      expect(outcome.issuanceKey, `item ${position}`).toBeNull();
      // A string body is sent as JSON, as the bulk carried it.
      const single = await issue(app, account.key, item.supplierKey,
        typeof item.document === 'string' ? JSON.stringify(item.document) : item.document,
        item.clientReferenceId);
      expect(single.statusCode, `item ${position}: ${single.body}`).not.toBe(200);
      expect(outcome.error).toEqual({ status: single.statusCode, code: single.json().code,
        message: single.json().message });
    }
    const acceptedPositions = items.map((_, index) => index)
      .filter((index) => !badAt.includes(index));
    for (const position of acceptedPositions) {
      expect(body.items[position]).toMatchObject({ error: null,
        clientReferenceId: items[position]!.clientReferenceId });
      expect(body.items[position]!.issuanceKey).toMatch(/^txi_/);
    }
    expect(body.acceptedCount).toBe(90);
    expect(body.refusedCount).toBe(10);
    expect(await balance()).toBe(before - 90 * PRICE);
    expect(await documentsWith(acceptedPositions.map((index) =>
      items[index]!.clientReferenceId))).toBe(90);
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
    const got = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/bulks/${body.bulkId}`));
    expect(got.statusCode).toBe(200);
    const bulk = got.json();
    expect(bulk).toMatchObject({ bulkId: body.bulkId, itemCount: 100, acceptedCount: 90,
      refusedCount: 10 });
    const counted = Object.values(bulk.counts as Record<string, number>)
      .reduce((sum, count) => sum + count, 0);
    expect(counted).toBe(90);
    expect(bulk.items[3]).toMatchObject({ issuanceKey: null, status: null });
  });

  it('refuses the documents the points no longer cover with the single issue\'s error and ' +
    'accepts the rest', async () => {
    const poor = await createSupplierAccount(app, 'Poor account');
    const items = Array.from({ length: 60 }, () => good(poor.supplier.supplierKey));
    const response = await bulkIssue(poor.key, items, reference());
    expect(response.statusCode, response.body).toBe(202);
    const outcomes = (response.json() as { items: Outcome[] }).items;
    const accepted = outcomes.filter((item) => item.issuanceKey !== null);
    expect(accepted).toHaveLength(50);
    for (const refused of outcomes.filter((item) => item.issuanceKey === null)) {
      expect(['PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT'])
        .toContain(refused.error!.code);
    }
    expect(await balance(poor.accountId)).toBe(0);
    await expectLedgerConsistent(app.platform, poor.accountId, 'test');
    const single = await issue(app, poor.key, poor.supplier.supplierKey);
    expect(single.json().code).toBe('PAYMENT_REQUIRED');
  });

  it('answers a retried bulk with the same bulk and acts once, and 409 for other items',
    async () => {
    const bulkReference = reference();
    const items = Array.from({ length: 5 }, () => good());
    const before = await balance();
    const first = await bulkIssue(account.key, items, bulkReference);
    expect(first.statusCode).toBe(202);
    const again = await bulkIssue(account.key, items, bulkReference);
    expect(again.statusCode).toBe(202);
    expect(again.json()).toEqual(first.json());
    expect(await balance()).toBe(before - 5 * PRICE);
    expect(await documentsWith(items.map((item) => item.clientReferenceId))).toBe(5);
    const other = await bulkIssue(account.key, [good()], bulkReference);
    expect(other.statusCode).toBe(409);
    expect(other.json().code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('answers two concurrent identical bulks with one bulk, acting once', async () => {
    const bulkReference = reference();
    const items = Array.from({ length: 20 }, () => good());
    const before = await balance();
    const [a, b] = await Promise.all([bulkIssue(account.key, items, bulkReference),
      bulkIssue(account.key, items, bulkReference)]);
    expect(a!.statusCode, a!.body).toBe(202);
    expect(b!.statusCode, b!.body).toBe(202);
    expect(b!.json()).toEqual(a!.json());
    expect((a!.json() as { acceptedCount: number }).acceptedCount).toBe(20);
    expect(await balance()).toBe(before - 20 * PRICE);
    expect(await documentsWith(items.map((item) => item.clientReferenceId))).toBe(20);
  });

  it('finishes a bulk whose accepting process died, without issuing its documents twice',
    async () => {
    const bulkReference = reference();
    const items = Array.from({ length: 4 }, () => good());
    const route = '/v1/taxInvoices:bulkIssue';
    await app.platform.database.pool.query(`insert into bulks (bulk_id, account_id,
      environment, api_key_id, kind, client_reference_id, fingerprint, status, item_count,
      accepting_until) select 'blk_dead' || md5(random()::text), $1, 'test', id, 'TAX_INVOICE',
      $2, $3, 'ACCEPTING', 4, now() - interval '1 second' from api_keys
      where account_id = $1 and environment = 'test' limit 1`, [account.accountId,
      bulkReference, requestFingerprint({ method: 'POST', route, body: items })]);
    // The dead process had accepted the first item.
    const earlier = await issue(app, account.key, items[0]!.supplierKey, items[0]!.document,
      items[0]!.clientReferenceId);
    expect(earlier.statusCode).toBe(200);
    const before = await balance();
    const response = await bulkIssue(account.key, items, bulkReference);
    expect(response.statusCode, response.body).toBe(202);
    const outcomes = (response.json() as { items: Outcome[] }).items;
    expect(outcomes[0]!.issuanceKey).toBe(earlier.json().issuanceKey);
    expect(outcomes.every((item) => item.error === null)).toBe(true);
    expect(await balance()).toBe(before - 3 * PRICE);
    expect(await documentsWith(items.map((item) => item.clientReferenceId))).toBe(4);
  });

  it('records the completion event once the documents are final, once across checkers',
    async () => {
    const items = Array.from({ length: 3 }, () => good());
    const response = await bulkIssue(account.key, items, reference());
    const { bulkId } = response.json() as { bulkId: string };
    // Held back from the app's own checker until the documents are final.
    await app.platform.database.pool.query(`update bulks set check_after = now() +
      interval '1 hour' where bulk_id = $1`, [bulkId]);
    const waiting = await pollUntil(async () => (await app.server.inject(request(account.key,
      'GET', `/v1/taxInvoices/bulks/${bulkId}`))).json(),
    (seen) => seen.counts.TRANSMITTED === 3);
    expect(waiting.status).toBe('PROCESSING');
    await app.platform.database.pool.query('update bulks set check_after = now() ' +
      'where bulk_id = $1', [bulkId]);
    // Checks running at once, as in several processes, beside the app's own.
    const completion = app.taxInvoices.dueWork
      .find((work) => work.name === 'tax-invoice-bulk-completion')!;
    await Promise.all([completion.runBatch(), completion.runBatch(), completion.runBatch()]);
    const bulk = await pollUntil(async () => (await app.server.inject(request(account.key,
      'GET', `/v1/taxInvoices/bulks/${bulkId}`))).json(),
    (seen) => seen.status === 'COMPLETED');
    expect(bulk.completedAt).not.toBeNull();
    await Promise.all([completion.runBatch(), completion.runBatch()]);
    const events = await app.platform.database.pool.query(`select data from webhook_events
      where type = 'TAX_INVOICE_BULK_COMPLETED' and data->>'bulkId' = $1`, [bulkId]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].data).toMatchObject({ bulkId, itemCount: 3, acceptedCount: 3,
      refusedCount: 0, counts: { TRANSMITTED: 3, FAILED: 0 } });
  });

  it('lists the scope\'s bulks in order with sealed cursors', async () => {
    const fresh = await createSupplierAccount(app, 'List account');
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await bulkIssue(fresh.key, [good(fresh.supplier.supplierKey)],
        reference());
      ids.push(response.json().bulkId);
    }
    const first = await app.server.inject(request(fresh.key, 'GET',
      '/v1/taxInvoices/bulks?limit=2'));
    expect(first.statusCode).toBe(200);
    expect(first.json().bulks.map((bulk: { bulkId: string }) => bulk.bulkId))
      .toEqual(ids.slice(0, 2));
    expect(first.json().hasMore).toBe(true);
    const second = await app.server.inject(request(fresh.key, 'GET',
      `/v1/taxInvoices/bulks?limit=2&cursor=${first.json().nextCursor}`));
    expect(second.json().bulks.map((bulk: { bulkId: string }) => bulk.bulkId))
      .toEqual(ids.slice(2));
    // Another account's cursor does not open here.
    const elsewhere = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/bulks?limit=2&cursor=${first.json().nextCursor}`));
    expect(elsewhere.statusCode).toBe(400);
  });
});

describe('what a single issue takes', () => {
  it('names a recipient by a counterparty, and refuses a closed one alone with the single ' +
    'issue\'s 409', async () => {
    const counterparty = async (businessRegistrationNumber: string) => {
      const created = await app.server.inject(request(account.key, 'POST', '/v1/counterparties',
        { body: { businessRegistrationNumber, organizationName: '주식회사 거래처',
          representativeName: '김대표',
          managers: [{ email: 'partner@example.com' }] } }));
      expect(created.statusCode, created.body).toBe(201);
      return (created.json() as { id: string }).id;
    };
    const open = await counterparty('220-81-62517');
    const closed = await counterparty(N.closed);
    const checked = await app.server.inject(request(account.key, 'POST',
      `/v1/counterparties/${closed}:refreshStatus`));
    expect(checked.statusCode, checked.body).toBe(200);
    const items = [
      { ...good(), document: invoiceBody({ supplied: { counterpartyId: open } }) },
      { ...good(), document: invoiceBody({ supplied: { counterpartyId: closed } }) },
      good(),
    ];
    const before = await balance();
    const response = await bulkIssue(account.key, items, reference());
    expect(response.statusCode, response.body).toBe(202);
    const outcomes = (response.json() as { items: Outcome[] }).items;
    expect(outcomes[0]!.issuanceKey).toMatch(/^txi_/);
    expect(outcomes[2]!.issuanceKey).toMatch(/^txi_/);
    const single = await issue(app, account.key, account.supplier.supplierKey,
      items[1]!.document, reference('doc'));
    expect(single.statusCode).toBe(409);
    expect(outcomes[1]).toMatchObject({ issuanceKey: null, error: { status: 409,
      code: 'COUNTERPARTY_CLOSED', message: single.json().message } });
    expect(await balance()).toBe(before - 2 * PRICE);
    const invoice = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/${outcomes[0]!.issuanceKey}`));
    expect(invoice.json().invoice.supplied).toMatchObject({
      identificationNumber: '2208162517', organizationName: '주식회사 거래처',
      managers: [{ email: 'partner@example.com' }] });
  });

  it('takes items without a reference id of their own, as the single issue does', async () => {
    const withReference = good();
    const items = [{ supplierKey: account.supplier.supplierKey, document: invoiceBody() },
      withReference, { supplierKey: account.supplier.supplierKey, document: invoiceBody() }];
    const before = await balance();
    const response = await bulkIssue(account.key, items, reference());
    expect(response.statusCode, response.body).toBe(202);
    const body = response.json() as { bulkId: string; items: Outcome[] };
    expect(body.items.map((item) => item.clientReferenceId))
      .toEqual([null, withReference.clientReferenceId, null]);
    expect(body.items.every((item) => item.issuanceKey?.startsWith('txi_'))).toBe(true);
    expect(await balance()).toBe(before - 3 * PRICE);
    const invoice = await app.server.inject(request(account.key, 'GET',
      `/v1/taxInvoices/${body.items[0]!.issuanceKey}`));
    expect(invoice.json().clientReferenceId).toBeNull();
    // Each item without one is linked to its document, for a take-over.
    const links = await app.platform.database.pool.query(`select item_index, issuance_key
      from bulk_item_documents where bulk_id = $1 order by item_index`, [body.bulkId]);
    expect(links.rows).toEqual([
      { item_index: 0, issuance_key: body.items[0]!.issuanceKey },
      { item_index: 2, issuance_key: body.items[2]!.issuanceKey }]);
  });

  it('finishes a taken-over bulk whose items have no reference id without issuing twice',
    async () => {
    const bulkReference = reference();
    const items = Array.from({ length: 3 }, () =>
      ({ supplierKey: account.supplier.supplierKey, document: invoiceBody() }));
    const route = '/v1/taxInvoices:bulkIssue';
    const bulkId = `blk_dead${randomUUID().replaceAll('-', '')}`;
    await app.platform.database.pool.query(`insert into bulks (bulk_id, account_id,
      environment, api_key_id, kind, client_reference_id, fingerprint, status, item_count,
      accepting_until) select $4, $1, 'test', id, 'TAX_INVOICE',
      $2, $3, 'ACCEPTING', 3, now() - interval '1 second' from api_keys
      where account_id = $1 and environment = 'test' limit 1`, [account.accountId,
      bulkReference, requestFingerprint({ method: 'POST', route, body: items }), bulkId]);
    // The dead process had accepted the second item, and linked it.
    const earlier = await issue(app, account.key, account.supplier.supplierKey,
      items[1]!.document);
    expect(earlier.statusCode).toBe(200);
    await app.platform.database.pool.query(`insert into bulk_item_documents (bulk_id,
      item_index, issuance_key) values ($1, 1, $2)`, [bulkId, earlier.json().issuanceKey]);
    const before = await balance();
    const response = await bulkIssue(account.key, items, bulkReference);
    expect(response.statusCode, response.body).toBe(202);
    const outcomes = (response.json() as { items: Outcome[] }).items;
    expect(outcomes[1]!.issuanceKey).toBe(earlier.json().issuanceKey);
    expect(outcomes.every((item) => item.error === null)).toBe(true);
    expect(new Set(outcomes.map((item) => item.issuanceKey)).size).toBe(3);
    expect(await balance()).toBe(before - 2 * PRICE);
  });
});

describe('errors', () => {
  const cases: Array<[string, () => Promise<{ statusCode: number; body: string }>, number]> = [
    ['no items', () => bulkIssue(account.key, [], reference()), 400],
    ['101 items', () => bulkIssue(account.key, Array.from({ length: 101 }, () => good()),
      reference()), 400],
    ['items that are not a list', () => bulkIssue(account.key, 'many', reference()), 400],
    ['an item without a supplierKey', () => bulkIssue(account.key,
      [{ clientReferenceId: 'x', document: {} }], reference()), 400],
    ['a numeric clientReferenceId', () => bulkIssue(account.key,
      [{ ...good(), clientReferenceId: 7 }], reference()), 400],
    ['a control character in an item\'s reference id', () => bulkIssue(account.key,
      [{ ...good(), clientReferenceId: 'a\u0000b' }], reference()), 400],
    ['a field the bulk does not have', () => bulkIssue(account.key,
      [{ ...good(), extra: true }], reference()), 400],
    ['no bulk reference id', () => bulkIssue(account.key, [good()]), 400],
    ['a blank bulk reference id', () => bulkIssue(account.key, [good()], '   '), 400],
    ['malformed JSON', () => bulkIssue(account.key, null, reference(), '{"items": [}'), 400],
    ['a body over 4 MiB', () => bulkIssue(account.key, null, reference(),
      JSON.stringify({ items: [{ ...good(), document: { description: 'x'.repeat(4_300_000) } }] })),
    413],
  ];
  for (const [name, send, status] of cases) {
    it(`answers ${status} for ${name}, charging nothing and making no bulk`, async () => {
      const before = await balance();
      const bulksBefore = (await app.platform.database.pool.query(
        'select count(*)::int as count from bulks')).rows[0].count;
      const response = await send();
      expect(response.statusCode, response.body).toBe(status);
      expect(JSON.parse(response.body)).toMatchObject({ code: expect.any(String),
        message: expect.any(String) });
      expect(await balance()).toBe(before);
      expect((await app.platform.database.pool.query(
        'select count(*)::int as count from bulks')).rows[0].count).toBe(bulksBefore);
    });
  }

  it('refuses a repeated item reference id within a bulk and accepts the first', async () => {
    const first = good();
    const response = await bulkIssue(account.key, [first, { ...good(),
      clientReferenceId: first.clientReferenceId }], reference());
    const outcomes = (response.json() as { items: Outcome[] }).items;
    expect(outcomes[0]!.issuanceKey).toMatch(/^txi_/);
    expect(outcomes[1]!.error).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  });
});

describe('security', () => {
  it('hides a bulk from other accounts and from the live key of its own account', async () => {
    const response = await bulkIssue(account.key, [good()], reference());
    const { bulkId } = response.json() as { bulkId: string };
    const other = await createSupplierAccount(app, 'Other account');
    for (const key of [other.key, account.liveKey, other.liveKey]) {
      const got = await app.server.inject(request(key, 'GET', `/v1/taxInvoices/bulks/${bulkId}`));
      expect(got.statusCode).toBe(404);
      expect(got.json().code).toBe('NOT_FOUND');
      const listed = await app.server.inject(request(key, 'GET', '/v1/taxInvoices/bulks'));
      expect(listed.json().bulks.map((bulk: { bulkId: string }) => bulk.bulkId))
        .not.toContain(bulkId);
    }
    // Another key's supplier key is refused per item, as alone.
    const foreign = await bulkIssue(other.key, [good()], reference());
    expect(foreign.json().items[0].error).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });

  it('keeps the bulk reference ids of test and live apart', async () => {
    const bulkReference = reference();
    await bulkIssue(account.key, [good()], bulkReference);
    const live = await bulkIssue(account.liveKey, [good()], bulkReference);
    expect(live.statusCode).toBe(202);
    expect(live.json().items[0].error).not.toBeNull();
  });
});
