// The counterparty book (docs/counterparties.md): create, list and search with sealed cursors,
// retrieve, change, delete; status checks charged as lookups; issuance by counterpartyId and
// the closed-counterparty rule. One app whose accounts start without test points
// (TEST_SIGNUP_POINTS=0), so every charge is checked to the point.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_STATUS_NUMBERS as N } from '../../../src/upstream/tax-authority/sandbox.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { jsonRequest } from '../../helpers/http.ts';
import { validNumbers } from '../../helpers/business-numbers.ts';
import {
  getInvoice, invoiceBody, issue, registerSupplier,
} from '../tax-invoices/helpers.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp({ jobs: true,
    env: { TEST_SIGNUP_POINTS: '0', WORKERS_ENABLED: 'false' } });
});
afterAll(async () => {
  await app?.close();
});

const { fundedAccount, expectBalance } = accountHelpers(() => app);

const send = (key: string, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string,
  body?: unknown) => app.server.inject(body === undefined
  ? { method, url, headers: { authorization: jsonRequest(key, method, url, {}).headers!
    .authorization as string } }
  : jsonRequest(key, method, url, body));

const RECIPIENT = {
  businessRegistrationNumber: '220-81-62517', organizationName: '주식회사 받는곳',
  representativeName: '이영희', address: '부산광역시 해운대구 센텀중앙로 97',
  businessType: '도소매', businessItem: '전자제품',
  managers: [{ email: 'account@example.com', name: '박수신', telephone: '010-1234-5678' }],
  memo: '월말 정산',
};

type View = { id: string; businessRegistrationNumber: string; organizationName: string;
  managers: unknown[]; memo: string | null; taxRegistrationId: string | null;
  registration: { status: string | null; closed: boolean; closedOn: string | null;
    checkedAt: string | null } };

async function create(key: string, body: Record<string, unknown> = RECIPIENT): Promise<View> {
  const response = await send(key, 'POST', '/v1/counterparties', body);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as View;
}

describe('the book', () => {
  it('adds, reads, changes and deletes a counterparty', async () => {
    const { keys } = await fundedAccount(0);
    const created = await create(keys.test);
    expect(created).toMatchObject({ businessRegistrationNumber: '2208162517',
      taxRegistrationId: null, organizationName: '주식회사 받는곳', memo: '월말 정산',
      autoRefreshStatus: false, managers: RECIPIENT.managers,
      registration: { status: null, closed: false, checkedAt: null } });
    expect(created.id).toMatch(/^cpt_/);
    const read = await send(keys.test, 'GET', `/v1/counterparties/${created.id}`);
    expect(read.json()).toEqual(created);

    const changed = await send(keys.test, 'PATCH', `/v1/counterparties/${created.id}`,
      { memo: null, address: '서울특별시', managers: [] });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toMatchObject({ memo: null, address: '서울특별시', managers: [],
      organizationName: '주식회사 받는곳' });

    const deleted = await send(keys.test, 'DELETE', `/v1/counterparties/${created.id}`);
    expect(deleted.statusCode).toBe(204);
    expectError(await send(keys.test, 'GET', `/v1/counterparties/${created.id}`), 404,
      'NOT_FOUND');
    expectError(await send(keys.test, 'DELETE', `/v1/counterparties/${created.id}`), 404,
      'NOT_FOUND');
    expectError(await send(keys.test, 'PATCH', `/v1/counterparties/${created.id}`,
      { memo: 'x' }), 404, 'NOT_FOUND');
  });

  it('refuses a bad checksum, a malformed number, missing fields and unknown ones', async () => {
    const { keys } = await fundedAccount(0);
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { ...RECIPIENT, businessRegistrationNumber: '220-81-62518' }), 400,
    'INVALID_BUSINESS_REGISTRATION_NUMBER', /businessRegistrationNumber/);
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { ...RECIPIENT, businessRegistrationNumber: '22081625' }), 400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { businessRegistrationNumber: '2208162517' }), 400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { ...RECIPIENT, owner: 'me' }), 400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { ...RECIPIENT, managers: [{ email: 'not-an-email' }] }), 400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'POST', '/v1/counterparties',
      { ...RECIPIENT, managers: [{ email: 'a@b.kr' }, { email: 'c@d.kr' }, { email: 'e@f.kr' }] }),
    400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'POST', '/v1/counterparties', '{"organizationName":'),
      400, 'INVALID_REQUEST');
    expectError(await send(keys.test, 'PATCH', '/v1/counterparties/cpt_none', {}), 400,
      'INVALID_REQUEST');
    const created = await create(keys.test);
    expectError(await send(keys.test, 'PATCH', `/v1/counterparties/${created.id}`,
      { businessRegistrationNumber: '1234567890' }), 400, 'INVALID_BUSINESS_REGISTRATION_NUMBER');
  });

  it('refuses text with control or bidirectional characters and keeps markup as text',
    async () => {
      const { keys } = await fundedAccount(0);
      for (const hostile of ['a\u0000b', 'a\u202Eb', 'line\nbreak', '   ']) {
        expectError(await send(keys.test, 'POST', '/v1/counterparties',
          { ...RECIPIENT, organizationName: hostile }), 400, 'INVALID_REQUEST');
      }
      const markup = '<script>alert(1)</script>\'"&; DROP TABLE counterparties;--';
      const created = await create(keys.test, { ...RECIPIENT, organizationName: markup,
        memo: `=HYPERLINK("http://x") ${markup}` });
      const read = await send(keys.test, 'GET', `/v1/counterparties/${created.id}`);
      expect(read.json()).toMatchObject({ organizationName: markup });
    });

  it('keeps a number (with its sub-place number) once', async () => {
    const { keys } = await fundedAccount(0);
    const first = await create(keys.test);
    expectError(await send(keys.test, 'POST', '/v1/counterparties', RECIPIENT), 409,
      'COUNTERPARTY_ALREADY_EXISTS');
    // Another sub-place of the same business is another counterparty.
    const branch = await create(keys.test, { ...RECIPIENT, taxRegistrationId: '0001' });
    expectError(await send(keys.test, 'PATCH', `/v1/counterparties/${branch.id}`,
      { taxRegistrationId: null }), 409, 'COUNTERPARTY_ALREADY_EXISTS');
    // The same number in another account or environment is not a duplicate.
    await create(keys.live);
    const other = await fundedAccount(0);
    await create(other.keys.test);
    expect(first.id).not.toBe(branch.id);
  });

  it('pages newest first with sealed cursors and searches by name, number and flag',
    async () => {
      const { keys } = await fundedAccount(0);
      const numbers = validNumbers(5, '3141');
      for (const [index, number] of numbers.entries()) {
        await create(keys.test, { businessRegistrationNumber: number,
          organizationName: index % 2 === 0 ? `짝수 상회 ${index}` : `Odd_Co% ${index}`,
          representativeName: '대표' });
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const page = await send(keys.test, 'GET', `/v1/counterparties?limit=2${query}`);
        expect(page.statusCode, page.body).toBe(200);
        const body = page.json() as { counterparties: View[]; nextCursor: string | null;
          hasMore: boolean };
        expect(body.hasMore).toBe(body.nextCursor !== null);
        seen.push(...body.counterparties.map((result) => result.businessRegistrationNumber));
        cursor = body.nextCursor;
        if (cursor !== null) {
          // A cursor is sealed: it shows no sequence and opens for its caller only.
          expect(cursor).not.toMatch(/^\d+$/);
          const other = await send(keys.live, 'GET', `/v1/counterparties?cursor=${cursor}`);
          expectError(other, 400, 'INVALID_REQUEST', /cursor/);
        }
      } while (cursor !== null);
      expect(seen).toEqual([...numbers].reverse());
      expectError(await send(keys.test, 'GET', '/v1/counterparties?cursor=AAAA'), 400,
        'INVALID_REQUEST');

      const byName = await send(keys.test, 'GET',
        `/v1/counterparties?name=${encodeURIComponent('상회')}`);
      expect((byName.json() as { counterparties: View[] }).counterparties).toHaveLength(3);
      // LIKE's wildcards are text here.
      const wildcard = await send(keys.test, 'GET', '/v1/counterparties?name=%25');
      expect((wildcard.json() as { counterparties: View[] }).counterparties).toHaveLength(2);
      const byNumber = await send(keys.test, 'GET',
        `/v1/counterparties?businessRegistrationNumber=${numbers[3]!.slice(0, 3)}-${
          numbers[3]!.slice(3, 5)}-${numbers[3]!.slice(5)}`);
      expect((byNumber.json() as { counterparties: View[] }).counterparties
        .map((result) => result.businessRegistrationNumber)).toEqual([numbers[3]]);
      const notClosed = await send(keys.test, 'GET', '/v1/counterparties?closed=false');
      expect((notClosed.json() as { counterparties: View[] }).counterparties).toHaveLength(5);
      const closed = await send(keys.test, 'GET', '/v1/counterparties?closed=true');
      expect((closed.json() as { counterparties: View[] }).counterparties).toHaveLength(0);
      expectError(await send(keys.test, 'GET', '/v1/counterparties?limit=0'), 400,
        'INVALID_REQUEST');
      expectError(await send(keys.test, 'GET', '/v1/counterparties?name=%00'), 400,
        'INVALID_REQUEST');
    });
});

describe('registration status', () => {
  it('is checked on request, charged as a lookup, and flags a closed counterparty',
    async () => {
      const account = await fundedAccount(10);
      const closed = await create(account.keys.test, { ...RECIPIENT,
        businessRegistrationNumber: N.closed });
      const refreshed = await send(account.keys.test, 'POST',
        `/v1/counterparties/${closed.id}:refreshStatus`);
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      expect(refreshed.json()).toMatchObject({ registration: { status: 'CLOSED',
        closedOn: '2024-06-30', closed: true, checkedAt: expect.any(String) } });
      await expectBalance(account, 0);
      const list = await send(account.keys.test, 'GET', '/v1/counterparties?closed=true');
      expect((list.json() as { counterparties: View[] }).counterparties.map((result) => result.id))
        .toEqual([closed.id]);
      // No points left: 402, and nothing recorded.
      expectError(await send(account.keys.test, 'POST',
        `/v1/counterparties/${closed.id}:refreshStatus`), 402, 'PAYMENT_REQUIRED');
      await expectBalance(account, 0);
    });

  it('costs nothing when the authority does not answer, and is 404 for no counterparty',
    async () => {
      const account = await fundedAccount(10);
      const down = await create(account.keys.test, { ...RECIPIENT,
        businessRegistrationNumber: N.unavailable });
      expectError(await send(account.keys.test, 'POST',
        `/v1/counterparties/${down.id}:refreshStatus`), 503, 'LOOKUP_UNAVAILABLE');
      expectError(await send(account.keys.test, 'POST',
        '/v1/counterparties/cpt_none:refreshStatus'), 404, 'NOT_FOUND');
      expectError(await send(account.keys.test, 'POST',
        `/v1/counterparties/${down.id}:refreshStatus`, { unexpected: true }), 400,
      'INVALID_REQUEST');
      await expectBalance(account, 10);
      // Live keys need the tax authority's service key, which this server lacks.
      const live = await create(account.keys.live);
      expectError(await send(account.keys.live, 'POST',
        `/v1/counterparties/${live.id}:refreshStatus`), 503, 'LOOKUP_UNAVAILABLE');
    });

  it('is checked again on the schedule for counterparties that ask for it, when due', async () => {
    const account = await fundedAccount(20);
    const due = await create(account.keys.test, { ...RECIPIENT,
      businessRegistrationNumber: N.suspended, autoRefreshStatus: true });
    const manual = await create(account.keys.test, { ...RECIPIENT,
      businessRegistrationNumber: N.closed });
    const poor = await fundedAccount(0);
    const unpaid = await create(poor.keys.test, { ...RECIPIENT, autoRefreshStatus: true });
    await app.counterparties.refreshDueStatuses();
    const read = async (key: string, id: string) =>
      (await send(key, 'GET', `/v1/counterparties/${id}`)).json() as View;
    expect((await read(account.keys.test, due.id)).registration.status).toBe('SUSPENDED');
    expect((await read(account.keys.test, manual.id)).registration.status).toBeNull();
    // An account that cannot pay is skipped, and nothing is recorded for it.
    expect((await read(poor.keys.test, unpaid.id)).registration.status).toBeNull();
    await expectBalance(account, 10);
    // Checked a moment ago: not due again.
    await app.counterparties.refreshDueStatuses();
    await expectBalance(account, 10);
    await expectBalance(poor, 0);
  });
});

describe('issuing to a counterparty', () => {
  it('copies the counterparty into the recipient, and refuses a closed one before charging',
    async () => {
      const account = await fundedAccount(1_000);
      const supplier = await registerSupplier(app, account.keys.test);
      const counterparty = await create(account.keys.test);
      const issued = await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: counterparty.id } }));
      expect(issued.statusCode, issued.body).toBe(200);
      const invoice = await getInvoice(app, account.keys.test,
        (issued.json() as { issuanceKey: string }).issuanceKey);
      expect(invoice.invoice).toMatchObject({ supplied: { identificationNumber: '2208162517',
        organizationName: '주식회사 받는곳', representativeName: '이영희',
        businessType: '도소매', managers: RECIPIENT.managers } });
      const overridden = await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: counterparty.id,
          managers: [{ email: 'other@example.com' }] } }));
      expect(overridden.statusCode, overridden.body).toBe(200);
      await expectBalance(account, 800);

      const closed = await create(account.keys.test, { ...RECIPIENT,
        businessRegistrationNumber: N.closed });
      const checked = await send(account.keys.test, 'POST',
        `/v1/counterparties/${closed.id}:refreshStatus`);
      expect(checked.statusCode).toBe(200);
      await expectBalance(account, 790);
      expectError(await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: closed.id } })), 409, 'COUNTERPARTY_CLOSED');
      await expectBalance(account, 790);

      // Another account's counterparty names nothing here; a counterparty without managers
      // needs them in the request.
      const stranger = await fundedAccount(0);
      const theirs = await create(stranger.keys.test);
      expectError(await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: theirs.id } })), 404, 'NOT_FOUND');
      const bare = await create(account.keys.test, { ...RECIPIENT, managers: [],
        taxRegistrationId: '0002' });
      expectError(await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: bare.id } })), 400, 'INVALID_REQUEST',
      /managers/);
      expectError(await issue(app, account.keys.test, supplier.supplierKey,
        invoiceBody({ supplied: { counterpartyId: counterparty.id, organizationName: 'x' } })),
      400, 'INVALID_REQUEST');
      await expectBalance(account, 790);
    });
});
