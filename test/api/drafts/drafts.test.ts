// Drafts over HTTP: saving with type and size checks, the problems issuance would report, merge
// patches, lists paged with sealed cursors, deletion, issuing once (a repeated issue answers the
// same, a concurrent one issues nothing and is charged nothing), no charge on a refused issue,
// isolation between accounts and environments, and approval with its events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { receiptBody } from '../cash-receipts/helpers.ts';
import {
  createSupplierAccount,
  invoiceBody,
  request,
  type SupplierAccount,
} from '../tax-invoices/helpers.ts';

let app: TestApp;
let account: SupplierAccount;
let other: SupplierAccount;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  account = await createSupplierAccount(app);
  other = await createSupplierAccount(app, 'Other account');
});
afterAll(async () => {
  await app?.close();
});

type Draft = { draftId: string; status: string; supplierKey: string | null;
  body: Record<string, unknown>; issueProblems: Array<{ code: string; message: string }> | null;
  issuanceKey: string | null; returnReason: string | null };

const TI = '/v1/taxInvoices/drafts';
const CR = '/v1/cashReceipts/drafts';
let references = 0;
const reference = () => `draft-test-${process.pid}-${Date.now()}-${(references += 1)}`;

function send(key: string, method: 'POST' | 'GET' | 'PATCH' | 'DELETE', url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {}) {
  return app.server.inject(request(key, method, url, options));
}

async function save(key: string, body: unknown, supplierKey?: string, base = TI):
  Promise<Draft> {
  const response = await send(key, 'POST', base, { body,
    headers: supplierKey === undefined ? {} : { 'supplier-key': supplierKey } });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as Draft;
}

const issueDraft = (key: string, draftId: string, referenceId: string, base = TI) =>
  send(key, 'POST', `${base}/${draftId}:issue`,
    { headers: { 'service-client-reference-id': referenceId } });

const balance = (accountId: string) =>
  app.platform.points.getBalance({ accountId, environment: 'test' });

async function documentsOf(accountId: string): Promise<number> {
  const result = await app.platform.database.pool.query(
    'select count(*)::int as count from tax_invoices where account_id = $1', [accountId]);
  return result.rows[0].count as number;
}

async function eventsOf(accountId: string, type: string) {
  const result = await app.platform.database.pool.query(
    'select data from webhook_events where account_id = $1 and type = $2 order by sequence',
    [accountId, type]);
  return result.rows.map((row) => row.data as Record<string, unknown>);
}

describe('saving', () => {
  it('keeps an incomplete body and reports what issuance would refuse', async () => {
    const draft = await save(account.key, { date: '2026-11-01', description: '초안' });
    expect(draft).toMatchObject({ status: 'DRAFT', supplierKey: null, issuanceKey: null,
      body: { date: '2026-11-01', description: '초안' } });
    expect(draft.draftId).toMatch(/^drf_/);
    expect(draft.issueProblems!.map((problem) => problem.code)).toEqual(['INVALID_REQUEST',
      'INVALID_REQUEST']);
    expect(draft.issueProblems![0]!.message).toMatch(/^body\.\w+ is required\.$/);
    expect(draft.issueProblems![1]!.message).toMatch(/supplier-key/);
  });

  it('reports the rules issuance checks beyond the schema, with the issuance code', async () => {
    const draft = await save(account.key, invoiceBody({ items: [{ date: invoiceBody().date,
      name: '품목', supplyCost: 1_000, tax: 999 }] }), account.supplier.supplierKey);
    expect(draft.issueProblems).toHaveLength(1);
    expect(draft.issueProblems![0]).toMatchObject({ code: 'INVALID_REQUEST',
      message: expect.stringMatching(/tax/) });
    const complete = await save(account.key, invoiceBody(), account.supplier.supplierKey);
    expect(complete.issueProblems).toEqual([]);
    // A Supplier-Key that names no issuer of this account and environment is refused at once,
    // as on every operation that takes one.
    const unknownSupplier = await send(account.key, 'POST', TI, { body: invoiceBody(),
      headers: { 'supplier-key': 'sup_unknown' } });
    expect(unknownSupplier.statusCode, unknownSupplier.body).toBe(404);
    expect(unknownSupplier.json()).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses wrong types, unknown fields, oversize and hostile text, and bad JSON', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ date: 5 }, /body\.date/],
      [{ purpose: 'GIFT' }, /body\.purpose must be one of/],
      [{ nickname: 'x' }, /body\.nickname is not a field/],
      [{ description: 'x'.repeat(201) }, /body\.description/],
      [{ supplied: { organizationName: 'a\u0000b' } }, /body\.supplied\.organizationName/],
      [{ supplied: { organizationName: '<script>\u202Ealert(1)</script>' } },
        /body\.supplied\.organizationName/],
      [{ items: Array.from({ length: 100 }, () => ({})) }, /body\.items/],
      [[], /body/],
    ];
    for (const [body, message] of cases) {
      expectError(await send(account.key, 'POST', TI, { body }), 400, 'INVALID_REQUEST',
        message);
    }
    expectError(await send(account.key, 'POST', TI, { body: '{"date":' }), 400,
      'INVALID_REQUEST');
    expectError(await send(account.key, 'POST', TI, { body: {},
      headers: { 'supplier-key': 'no spaces allowed' } }), 400, 'INVALID_REQUEST',
    /supplier-key/);
    expect((await send(account.key, 'POST', TI, { body: {} })).statusCode).toBe(201);
  });

  it('keeps hostile but printable text as it was sent', async () => {
    const hostile = '<img src=x onerror=alert(1)> "\'; DROP TABLE drafts; --';
    const draft = await save(account.key, { description: hostile.slice(0, 200) });
    expect(draft.body.description).toBe(hostile.slice(0, 200));
  });
});

describe('changing, reading, listing, deleting', () => {
  it('merges a patch: objects by field, arrays replaced, null removes', async () => {
    const draft = await save(account.key, { description: '하나', supplied: {
      organizationName: '받는곳', representativeName: '이영희' } });
    const response = await send(account.key, 'PATCH', `${TI}/${draft.draftId}`, {
      body: { description: null, supplied: { representativeName: '김철수' },
        items: [{ name: '품목' }] },
      headers: { 'supplier-key': account.supplier.supplierKey } });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ supplierKey: account.supplier.supplierKey,
      body: { supplied: { organizationName: '받는곳', representativeName: '김철수' },
        items: [{ name: '품목' }] } });
    expect((response.json() as Draft).body).not.toHaveProperty('description');
    expectError(await send(account.key, 'PATCH', `${TI}/${draft.draftId}`,
      { body: { items: 'none' } }), 400, 'INVALID_REQUEST', /items/);
    expectError(await send(account.key, 'PATCH', `${TI}/drf_missing`, { body: {} }), 404,
      'NOT_FOUND');
  });

  it('reads a draft of its own scope only: another account and the live key get 404',
    async () => {
      const draft = await save(account.key, { description: '비밀' });
      expect((await send(account.key, 'GET', `${TI}/${draft.draftId}`)).statusCode).toBe(200);
      for (const key of [other.key, account.liveKey]) {
        expectError(await send(key, 'GET', `${TI}/${draft.draftId}`), 404, 'NOT_FOUND');
        expectError(await send(key, 'PATCH', `${TI}/${draft.draftId}`, { body: {} }), 404,
          'NOT_FOUND');
        expectError(await send(key, 'DELETE', `${TI}/${draft.draftId}`), 404, 'NOT_FOUND');
        expectError(await issueDraft(key, draft.draftId, reference()), 404, 'NOT_FOUND');
        const listed = (await send(key, 'GET', TI)).json() as { drafts: Draft[] };
        expect(listed.drafts.map((row) => row.draftId)).not.toContain(draft.draftId);
      }
      // A tax invoice draft is not a cash receipt draft.
      expectError(await send(account.key, 'GET', `${CR}/${draft.draftId}`), 404, 'NOT_FOUND');
      expectError(await send(account.key, 'GET', `${TI}/not-a-draft`), 400, 'INVALID_REQUEST');
    });

  it('lists in the order made, by status, paged with cursors that open only there',
    async () => {
      const fresh = await createSupplierAccount(app, 'Lists');
      const made = [];
      for (let index = 0; index < 3; index += 1) {
        made.push((await save(fresh.key, { description: `초안 ${index}` })).draftId);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
        const response = await send(fresh.key, 'GET', `${TI}${query}`);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { drafts: Draft[]; nextCursor: string | null;
          hasMore: boolean };
        expect(page.drafts.every((row) => row.issueProblems === null)).toBe(true);
        seen.push(...page.drafts.map((row) => row.draftId));
        expect(page.hasMore).toBe(page.nextCursor !== null);
        cursor = page.nextCursor;
        if (cursor !== null) {
          // The cursor opens for this list and scope only.
          expectError(await send(fresh.key, 'GET', `${CR}?cursor=${cursor}`), 400,
            'INVALID_REQUEST');
          expectError(await send(account.key, 'GET', `${TI}?cursor=${cursor}`), 400,
            'INVALID_REQUEST');
        }
      } while (cursor !== null);
      expect(seen).toEqual(made);
      expect(((await send(fresh.key, 'GET', `${TI}?status=ISSUED`)).json() as
        { drafts: Draft[] }).drafts).toEqual([]);
      expectError(await send(fresh.key, 'GET', `${TI}?status=LOST`), 400, 'INVALID_REQUEST');
      expectError(await send(fresh.key, 'GET', `${TI}?cursor=forged`), 400, 'INVALID_REQUEST');
      expectError(await send(fresh.key, 'GET', `${TI}?limit=101`), 400, 'INVALID_REQUEST');
    });

  it('deletes a draft: 204, then 404', async () => {
    const draft = await save(account.key, {});
    const deleted = await send(account.key, 'DELETE', `${TI}/${draft.draftId}`);
    expect(deleted.statusCode).toBe(204);
    expectError(await send(account.key, 'GET', `${TI}/${draft.draftId}`), 404, 'NOT_FOUND');
    expectError(await send(account.key, 'DELETE', `${TI}/${draft.draftId}`), 404, 'NOT_FOUND');
  });
});

describe('issuing', () => {
  it('refuses an incomplete draft with issuance\'s answer, charging and keeping nothing',
    async () => {
      const draft = await save(account.key, { description: '미완성' },
        account.supplier.supplierKey);
      const before = await balance(account.accountId);
      const documents = await documentsOf(account.accountId);
      expectError(await issueDraft(account.key, draft.draftId, reference()), 400,
        'INVALID_REQUEST', /^body\./);
      expectError(await send(account.key, 'POST', `${TI}/${draft.draftId}:issue`), 400,
        'INVALID_REQUEST', /service-client-reference-id/);
      expect(await balance(account.accountId)).toEqual(before);
      expect(await documentsOf(account.accountId)).toBe(documents);
      const after = (await send(account.key, 'GET', `${TI}/${draft.draftId}`)).json() as Draft;
      expect(after.status).toBe('DRAFT');
    });

  it('issues once: the same issue again answers the same, another is 409', async () => {
    const draft = await save(account.key, invoiceBody(), account.supplier.supplierKey);
    const before = await balance(account.accountId);
    const referenceId = reference();
    const first = await issueDraft(account.key, draft.draftId, referenceId);
    expect(first.statusCode, first.body).toBe(200);
    const issued = first.json() as Draft;
    expect(issued).toMatchObject({ status: 'ISSUED', issueProblems: null });
    expect(issued.issuanceKey).toMatch(/^txi_/);
    const again = await issueDraft(account.key, draft.draftId, referenceId);
    expect(again.statusCode).toBe(200);
    expect((again.json() as Draft).issuanceKey).toBe(issued.issuanceKey);
    expectError(await issueDraft(account.key, draft.draftId, reference()), 409,
      'DRAFT_ALREADY_ISSUED');
    expect((await balance(account.accountId)).balance).toBe(before.balance - 100);
    const invoice = await send(account.key, 'GET', `/v1/taxInvoices/${issued.issuanceKey}`);
    expect(invoice.json()).toMatchObject({ clientReferenceId: referenceId });
    expectError(await send(account.key, 'PATCH', `${TI}/${draft.draftId}`, { body: {} }), 409,
      'DRAFT_NOT_EDITABLE');
    expectError(await send(account.key, 'DELETE', `${TI}/${draft.draftId}`), 409,
      'DRAFT_NOT_EDITABLE');
  });

  it('of two concurrent issues, issues one document and charges it once', async () => {
    const fresh = await createSupplierAccount(app, 'Concurrent');
    const draft = await save(fresh.key, invoiceBody(), fresh.supplier.supplierKey);
    const before = await balance(fresh.accountId);
    const answers = await Promise.all([issueDraft(fresh.key, draft.draftId, reference()),
      issueDraft(fresh.key, draft.draftId, reference())]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.statusCode === 409)!.json().code)
      .toBe('DRAFT_ALREADY_ISSUED');
    expect(await documentsOf(fresh.accountId)).toBe(1);
    expect((await balance(fresh.accountId)).balance).toBe(before.balance - 100);
    // The same reference id twice at once: one document, both answered with it.
    const second = await save(fresh.key, invoiceBody(), fresh.supplier.supplierKey);
    const referenceId = reference();
    const same = await Promise.all([issueDraft(fresh.key, second.draftId, referenceId),
      issueDraft(fresh.key, second.draftId, referenceId)]);
    expect(same.map((answer) => answer.statusCode)).toEqual([200, 200]);
    expect(new Set(same.map((answer) => (answer.json() as Draft).issuanceKey)).size).toBe(1);
    expect(await documentsOf(fresh.accountId)).toBe(2);
    expect((await balance(fresh.accountId)).balance).toBe(before.balance - 200);
  });

  it('issues a cash receipt draft with 202, once per reference id', async () => {
    const draft = await save(account.key, { usage: 'INCOME_DEDUCTION' }, undefined, CR);
    expect(draft.issueProblems!.length).toBeGreaterThan(0);
    const patched = await send(account.key, 'PATCH', `${CR}/${draft.draftId}`,
      { body: receiptBody(), headers: { 'supplier-key': account.supplier.supplierKey } });
    expect(patched.json()).toMatchObject({ issueProblems: [] });
    const referenceId = reference();
    const first = await issueDraft(account.key, draft.draftId, referenceId, CR);
    expect(first.statusCode, first.body).toBe(202);
    expect((first.json() as Draft).issuanceKey).toMatch(/^csr_/);
    const again = await issueDraft(account.key, draft.draftId, referenceId, CR);
    expect(again.statusCode).toBe(202);
    expect((again.json() as Draft).issuanceKey).toBe((first.json() as Draft).issuanceKey);
  });
});

describe('approval', () => {
  it('submits a key\'s issue, which an approver approves or sends back, with events',
    async () => {
      const fresh = await createSupplierAccount(app, 'Approval');
      await app.drafts.approval.setApprovalRequired({ accountId: fresh.accountId,
        approvalRequired: true, actor: 'test' });
      const before = await balance(fresh.accountId);
      const incomplete = await save(fresh.key, {}, fresh.supplier.supplierKey);
      expectError(await issueDraft(fresh.key, incomplete.draftId, reference()), 400,
        'INVALID_REQUEST');
      const draft = await save(fresh.key, invoiceBody(), fresh.supplier.supplierKey);
      expectError(await issueDraft(fresh.key, draft.draftId, reference()), 403,
        'DRAFT_APPROVAL_REQUIRED');
      expectError(await issueDraft(fresh.key, draft.draftId, reference()), 403,
        'DRAFT_APPROVAL_REQUIRED');
      expect(((await send(fresh.key, 'GET', `${TI}/${draft.draftId}`)).json() as Draft).status)
        .toBe('SUBMITTED');
      expectError(await send(fresh.key, 'PATCH', `${TI}/${draft.draftId}`, { body: {} }), 409,
        'DRAFT_NOT_EDITABLE');
      expect(await eventsOf(fresh.accountId, 'TAX_INVOICE_DRAFT_SUBMITTED')).toEqual([
        { draftId: draft.draftId, actor: expect.stringMatching(/^key_/) }]);
      expect(await documentsOf(fresh.accountId)).toBe(0);
      expect(await balance(fresh.accountId)).toEqual(before);

      const approver = { accountId: fresh.accountId, environment: 'test' as const,
        apiKeyId: 'dashboard:usr_approver' };
      const approved = await app.drafts.taxInvoiceDrafts.approve({ caller: approver,
        draftId: draft.draftId, referenceId: reference() });
      expect(approved.status).toBe('ISSUED');
      expect(await eventsOf(fresh.accountId, 'TAX_INVOICE_DRAFT_APPROVED')).toEqual([
        { draftId: draft.draftId, actor: 'dashboard:usr_approver',
          issuanceKey: approved.issuanceKey }]);
      expect((await balance(fresh.accountId)).balance).toBe(before.balance - 100);

      const returned = await save(fresh.key, invoiceBody(), fresh.supplier.supplierKey);
      await issueDraft(fresh.key, returned.draftId, reference());
      const back = await app.drafts.taxInvoiceDrafts.sendBack({ caller: approver,
        draftId: returned.draftId, reason: '금액을 확인하세요 <b>' });
      expect(back).toMatchObject({ status: 'DRAFT', returnReason: '금액을 확인하세요 <b>' });
      expect(await eventsOf(fresh.accountId, 'TAX_INVOICE_DRAFT_RETURNED')).toEqual([
        { draftId: returned.draftId, actor: 'dashboard:usr_approver',
          reason: '금액을 확인하세요 <b>' }]);
      await expect(app.drafts.taxInvoiceDrafts.approve({ caller: approver,
        draftId: returned.draftId, referenceId: reference() })).rejects
        .toMatchObject({ code: 'DRAFT_NOT_SUBMITTED' });
      const patched = await send(fresh.key, 'PATCH', `${TI}/${returned.draftId}`,
        { body: { description: '수정함' } });
      expect(patched.statusCode).toBe(200);
      // Without the setting, the key issues it itself.
      await app.drafts.approval.setApprovalRequired({ accountId: fresh.accountId,
        approvalRequired: false, actor: 'test' });
      expect((await issueDraft(fresh.key, returned.draftId, reference())).statusCode).toBe(200);
    });
});

describe('the service behind the dashboard', () => {
  const callerOf = (of: SupplierAccount) =>
    ({ accountId: of.accountId, environment: 'test' as const, apiKeyId: 'dashboard:import' });

  it('imports many drafts once per reference id, and refuses other bodies under it', async () => {
    const bodies = [invoiceBody({ description: 'import one' }),
      invoiceBody({ description: 'import two' })];
    const referenceId = reference();
    const input = { caller: callerOf(account), supplierKey: account.supplier.supplierKey,
      bodies, referenceId };
    const first = await app.drafts.taxInvoiceDrafts.importMany(input);
    expect(first.draftIds).toHaveLength(2);
    const again = await app.drafts.taxInvoiceDrafts.importMany(input);
    expect(again.draftIds).toEqual(first.draftIds);
    const read = await app.drafts.taxInvoiceDrafts.get({ caller: callerOf(account),
      draftId: first.draftIds[1]! });
    expect(read).toMatchObject({ status: 'DRAFT', supplierKey: account.supplier.supplierKey,
      body: { description: 'import two' }, issueProblems: [] });
    await expect(app.drafts.taxInvoiceDrafts.importMany({ ...input,
      bodies: [invoiceBody({ description: 'other' })] }))
      .rejects.toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
    // Another account's supplier, a bad body or too many bodies save nothing.
    await expect(app.drafts.taxInvoiceDrafts.importMany({ ...input, referenceId: reference(),
      supplierKey: other.supplier.supplierKey })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(app.drafts.taxInvoiceDrafts.importMany({ ...input, referenceId: reference(),
      bodies: [bodies[0], { date: 7 }] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(app.drafts.taxInvoiceDrafts.importMany({ ...input, referenceId: reference(),
      bodies: Array.from({ length: 101 }, () => bodies[0]) }))
      .rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(app.drafts.taxInvoiceDrafts.importMany({ ...input, referenceId: reference(),
      bodies: [] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('changes a draft only at the version it was read at', async () => {
    const saved = await save(account.key, { description: 'versioned' });
    const caller = callerOf(account);
    const changed = await app.drafts.taxInvoiceDrafts.update({ caller, draftId: saved.draftId,
      patch: { description: 'second' }, expectedVersion: 1 });
    expect(changed.version).toBe(2);
    await expect(app.drafts.taxInvoiceDrafts.update({ caller, draftId: saved.draftId,
      patch: { description: 'stale' }, expectedVersion: 1 }))
      .rejects.toMatchObject({ code: 'DRAFT_CHANGED' });
    const read = await send(account.key, 'GET', `${TI}/${saved.draftId}`);
    expect(read.json()).toMatchObject({ body: { description: 'second' } });
    // The version is the service's, not part of the API's answer.
    expect(read.json()).not.toHaveProperty('version');
  });
});
