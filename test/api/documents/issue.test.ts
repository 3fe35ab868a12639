// Requesting documents (docs/documents.md) with workers off: the owner business and its
// certificate, each type's rules, the reference id (replay, conflict, concurrent duplicates),
// the reservation made at acceptance and settled by the job (run here with
// app.documents.process), the original PDF, and isolation between accounts and environments.
import { SANDBOX_STATUS_NUMBERS } from '../../../src/upstream/tax-authority/sandbox.ts';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSandboxCivilDocuments } from '../../../src/upstream/civil-documents/sandbox.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { expectLedgerConsistent, ledgerSnapshot } from '../../helpers/ledger-audit.ts';
import {
  acceptedKey,
  CORPORATION_NUMBER,
  createOwnerAccount,
  getDocument,
  issueDocument,
  newReferenceId,
  OWNER_NAME,
  OWNER_NUMBER,
  request,
  setOwnerBusiness,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;

const FUNDS = 100_000;

beforeAll(async () => {
  app = await createTestApp({ jobs: true,
    env: { WORKERS_ENABLED: 'false', TEST_SIGNUP_POINTS: '0' } });
  ({ key, accountId } = await createOwnerAccount(app, { points: FUNDS }));
});
afterAll(async () => {
  await app?.close();
});

const balanceOf = (id = accountId) =>
  app.platform.points.getBalance({ accountId: id, environment: 'test' });

describe('the owner business', () => {
  it('is 409 OWNER_BUSINESS_NOT_REGISTERED until it is set, then answers it', async () => {
    const account = await app.createAccount();
    expectError(await app.server.inject(request(account.keys.test, 'GET',
      '/v1/account/business')), 409, 'OWNER_BUSINESS_NOT_REGISTERED');
    const saved = await setOwnerBusiness(app, account.keys.test,
      { businessNumber: '123-45-67891' });
    const read = await app.server.inject(request(account.keys.test, 'GET', '/v1/account/business'));
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ businessNumber: OWNER_NUMBER, name: OWNER_NAME,
      representativeName: '홍길동', issuerId: saved.issuerId, certificate: null });
  });

  it('is one issuer: its certificate is registered by the issuers area and shows here',
    async () => {
      const read = await app.server.inject(request(key, 'GET', '/v1/account/business'));
      expect(read.json().certificate).toEqual({ issuedAt: expect.any(String),
        expiresAt: expect.any(String) });
      const issuer = await app.server.inject(request(key, 'GET',
        `/v1/issuers/${read.json().issuerId}`));
      expect(issuer.json()).toMatchObject({ identificationNumber: OWNER_NUMBER,
        certificate: read.json().certificate });
    });

  it('takes over an active issuer of the same number, and changes names in place', async () => {
    const account = await app.createAccount();
    const created = await app.server.inject(request(account.keys.test, 'POST', '/v1/issuers', {
      body: { identificationNumber: OWNER_NUMBER, organizationName: '옛 이름',
        representativeName: '김옛날' } }));
    expect(created.statusCode).toBe(201);
    const owner = await setOwnerBusiness(app, account.keys.test);
    expect(owner.issuerId).toBe(created.json().issuerId);
    const renamed = await setOwnerBusiness(app, account.keys.test, { name: '주식회사 새이름' });
    expect(renamed).toMatchObject({ issuerId: owner.issuerId, name: '주식회사 새이름' });
  });

  it('is one per environment: the live key has none of the test key\'s', async () => {
    const account = await app.createAccount();
    await setOwnerBusiness(app, account.keys.test);
    expectError(await app.server.inject(request(account.keys.live, 'GET',
      '/v1/account/business')), 409, 'OWNER_BUSINESS_NOT_REGISTERED');
  });

  it.each([
    [{ businessNumber: '1234567890' }, 400, 'INVALID_BUSINESS_REGISTRATION_NUMBER'],
    [{ businessNumber: '12345' }, 400, 'INVALID_REQUEST'],
    [{ name: '' }, 400, 'INVALID_REQUEST'],
    [{ representativeName: 'a\u0000b' }, 400, 'INVALID_REQUEST'],
    [{ extra: true }, 400, 'INVALID_REQUEST'],
  ])('refuses %j', async (change, status, code) => {
    const response = await app.server.inject(request(key, 'PUT', '/v1/account/business', {
      body: { businessNumber: OWNER_NUMBER, name: OWNER_NAME, representativeName: '홍길동',
        ...change } }));
    expectError(response, status, code);
  });
});

describe('who may request what', () => {
  it('refuses a tax-authority document without an owner business', async () => {
    const account = await app.createFundedAccount(FUNDS);
    expectError(await issueDocument(app, account.keys.test,
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' }), 409, 'OWNER_BUSINESS_NOT_REGISTERED');
    expect(await balanceOf(account.accountId)).toMatchObject({ reserved: 0 });
  });

  it('refuses a tax-authority document without a registered certificate', async () => {
    const account = await app.createFundedAccount(FUNDS);
    await setOwnerBusiness(app, account.keys.test);
    expectError(await issueDocument(app, account.keys.test,
      { type: 'TAX_PAYMENT_CERTIFICATE' }), 409, 'CERTIFICATE_NOT_REGISTERED');
    expect(await balanceOf(account.accountId)).toEqual({ balance: FUNDS, reserved: 0,
      available: FUNDS });
  });

  it('issues a registry copy without an owner business or a certificate', async () => {
    const account = await app.createFundedAccount(FUNDS);
    const issuanceKey = await acceptedKey(app, account.keys.test,
      { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '110111-0062432' });
    expect(await getDocument(app, account.keys.test, issuanceKey)).toMatchObject({
      status: 'ACCEPTED', points: 1_000,
      options: { registryScope: 'ALL', registryEntries: 'CURRENT' } });
  });

  // Numbers with their check digits: 사회복지법인 (32), 의료법인 (33), 회계법인 (34), 법무법인
  // (46), a corporation no other kind number fits (71).
  it.each(['110132-0000016', '110133-0000014', '110134-0000012', '110146-0000017',
    '110171-0000014'])('issues a registry copy for %s, a kind of the registry\'s table',
    async (corporationNumber) => {
      const account = await app.createFundedAccount(FUNDS);
      const issuanceKey = await acceptedKey(app, account.keys.test,
        { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber });
      expect(await getDocument(app, account.keys.test, issuanceKey)).toMatchObject({
        status: 'ACCEPTED', points: 1_000 });
    });

  it('answers 503 SERVICE_UNAVAILABLE for live keys without a gateway, charging nothing',
    async () => {
      const account = await app.createFundedAccount(FUNDS, 'live');
      expectError(await issueDocument(app, account.keys.live,
        { type: 'CORPORATE_REGISTRY_SUBMISSION', corporationNumber: CORPORATION_NUMBER }),
      503, 'SERVICE_UNAVAILABLE');
      expect(await app.platform.points.getBalance({ accountId: account.accountId,
        environment: 'live' })).toEqual({ balance: FUNDS, reserved: 0, available: FUNDS });
    });
});

describe('each type\'s rules', () => {
  it.each([
    ['a missing type', {}, 'INVALID_REQUEST'],
    ['an unknown type', { type: 'PASSPORT' }, 'INVALID_REQUEST'],
    ['an option of another type', { type: 'BUSINESS_REGISTRATION_CERTIFICATE', taxYear: 2024 },
      'INVALID_REQUEST'],
    ['a registry option on a tax document', { type: 'TAX_PAYMENT_CERTIFICATE',
      registryScope: 'ALL' }, 'INVALID_REQUEST'],
    ['a blank purpose', { type: 'TAX_PAYMENT_CERTIFICATE', purpose: '' }, 'INVALID_REQUEST'],
    ['a purpose with control characters', { type: 'TAX_PAYMENT_CERTIFICATE',
      purpose: 'a\nb' }, 'INVALID_REQUEST'],
    ['a purpose with a lone surrogate', { type: 'TAX_PAYMENT_CERTIFICATE',
      purpose: '\ud800' }, 'INVALID_REQUEST'],
    ['an unknown language', { type: 'TAX_PAYMENT_CERTIFICATE', language: 'JA' },
      'INVALID_REQUEST'],
    ['a language on financial statements', { type: 'STANDARD_FINANCIAL_STATEMENTS',
      fiscalYearEndMonth: '2024-12', language: 'EN' }, 'INVALID_REQUEST'],
    ['a VAT certificate without its period', { type: 'VAT_TAX_BASE_CERTIFICATE' },
      'INVALID_REQUEST'],
    ['a VAT period ending before it starts', { type: 'VAT_TAX_BASE_CERTIFICATE',
      startYearMonth: '2025-06', endYearMonth: '2025-01' }, 'INVALID_REQUEST'],
    ['a VAT period in the future', { type: 'VAT_TAX_BASE_CERTIFICATE',
      startYearMonth: '2025-01', endYearMonth: '2999-12' }, 'INVALID_REQUEST'],
    ['a VAT period over 60 months', { type: 'VAT_TAX_BASE_CERTIFICATE',
      startYearMonth: '2015-01', endYearMonth: '2020-01' }, 'INVALID_REQUEST'],
    ['a malformed month', { type: 'VAT_TAX_BASE_CERTIFICATE', startYearMonth: '2025-13',
      endYearMonth: '2025-12' }, 'INVALID_REQUEST'],
    ['an income certificate without its year', { type: 'INCOME_AMOUNT_CERTIFICATE',
      incomeCertificateKind: 'WAGE_EARNER' }, 'INVALID_REQUEST'],
    ['an income certificate without its kind', { type: 'INCOME_AMOUNT_CERTIFICATE',
      taxYear: 2024 }, 'INVALID_REQUEST'],
    ['an income certificate of an unknown kind', { type: 'INCOME_AMOUNT_CERTIFICATE',
      taxYear: 2024, incomeCertificateKind: 'CORPORATE' }, 'INVALID_REQUEST'],
    ['an income certificate kind on another type', { type: 'TAX_PAYMENT_CERTIFICATE',
      incomeCertificateKind: 'WAGE_EARNER' }, 'INVALID_REQUEST'],
    ['an individual\'s financial statements of a year not ending in December',
      { type: 'STANDARD_FINANCIAL_STATEMENTS', fiscalYearEndMonth: '2024-06' },
      'INVALID_REQUEST'],
    ['an income certificate for this year', { type: 'INCOME_AMOUNT_CERTIFICATE',
      taxYear: new Date().getUTCFullYear() + 1 }, 'INVALID_REQUEST'],
    ['a tax year as text', { type: 'INCOME_AMOUNT_CERTIFICATE', taxYear: '2024' },
      'INVALID_REQUEST'],
    ['financial statements without their year end', { type: 'STANDARD_FINANCIAL_STATEMENTS' },
      'INVALID_REQUEST'],
    ['financial statements of a year not ended', { type: 'STANDARD_FINANCIAL_STATEMENTS',
      fiscalYearEndMonth: '2999-12' }, 'INVALID_REQUEST'],
    ['a fact certificate with a year', { type: 'BUSINESS_CLOSURE_FACT_CERTIFICATE',
      taxYear: 2024 }, 'INVALID_REQUEST'],
    ['a suspension certificate in English', { type: 'BUSINESS_SUSPENSION_FACT_CERTIFICATE',
      language: 'EN' }, 'INVALID_REQUEST'],
    ['a registry copy without a corporation', { type: 'CORPORATE_REGISTRY_VIEW' },
      'INVALID_REQUEST'],
    ['a corporation number of twelve digits', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: '110111006243' }, 'INVALID_REQUEST'],
    ['a corporation number with letters', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: '11011100624a' }, 'INVALID_REQUEST'],
    ['a corporation number failing its check digit', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: '1101110062433' }, 'INVALID_CORPORATE_REGISTRATION_NUMBER'],
    ['a corporation of an unsupported kind', { type: 'CORPORATE_REGISTRY_SUBMISSION',
      corporationNumber: '1101811234562' }, 'CORPORATION_TYPE_NOT_SUPPORTED'],
    ['a corporation of a kind number outside the table', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: '110154-0000010' }, 'CORPORATION_TYPE_NOT_SUPPORTED'],
    ['an unknown registry scope', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: CORPORATION_NUMBER, registryScope: 'SOME' }, 'INVALID_REQUEST'],
    ['a tax option on a registry copy', { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: CORPORATION_NUMBER, purpose: '제출' }, 'INVALID_REQUEST'],
  ])('refuses %s with 400, charging nothing', async (_name, body, code) => {
    const before = await ledgerSnapshot(app.platform.database.db, accountId, 'test');
    expectError(await issueDocument(app, key, body), 400, code);
    expect(await ledgerSnapshot(app.platform.database.db, accountId, 'test')).toEqual(before);
  });

  it.each([
    { type: 'BUSINESS_REGISTRATION_CERTIFICATE', language: 'EN', showAddress: false },
    { type: 'TAX_PAYMENT_CERTIFICATE', purpose: '입찰 참가' },
    { type: 'VAT_TAX_BASE_CERTIFICATE', startYearMonth: '2024-01', endYearMonth: '2024-12' },
    { type: 'INCOME_AMOUNT_CERTIFICATE', taxYear: 2024,
      incomeCertificateKind: 'GLOBAL_INCOME_TAX_RETURN' },
    { type: 'STANDARD_FINANCIAL_STATEMENTS', fiscalYearEndMonth: '2024-12' },
    { type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '1301110006246', registryScope: 'PART',
      registryEntries: 'INCLUDING_STRUCK_OUT' },
    { type: 'CORPORATE_REGISTRY_SUBMISSION', corporationNumber: '110111-0062432' },
  ])('accepts $type', async (body) => {
    const issuanceKey = await acceptedKey(app, key, body);
    expect(await getDocument(app, key, issuanceKey)).toMatchObject({ type: body.type,
      status: 'ACCEPTED' });
  });

  it('refuses an income certificate (소득금액증명) for a corporation, charging nothing, and ' +
    'takes a corporation\'s financial statements of any year end', async () => {
    const account = await createOwnerAccount(app, { businessNumber: '1208100017',
      points: FUNDS });
    const before = await ledgerSnapshot(app.platform.database.db, account.accountId, 'test');
    expectError(await issueDocument(app, account.key, { type: 'INCOME_AMOUNT_CERTIFICATE',
      taxYear: 2024, incomeCertificateKind: 'GLOBAL_INCOME_TAX_RETURN' }), 400,
    'INVALID_REQUEST', /individuals only; the owner business 1208100017 is a corporation/);
    expect(await ledgerSnapshot(app.platform.database.db, account.accountId, 'test'))
      .toEqual(before);
    await acceptedKey(app, account.key, { type: 'STANDARD_FINANCIAL_STATEMENTS',
      fiscalYearEndMonth: '2024-06' });
  });

  it('issues a fact certificate only of the state the tax authority reports, charging nothing ' +
    'on a refusal', async () => {
    const closed = await createOwnerAccount(app, { businessNumber: SANDBOX_STATUS_NUMBERS.closed,
      points: FUNDS });
    const suspended = await createOwnerAccount(app, { points: FUNDS,
      businessNumber: SANDBOX_STATUS_NUMBERS.suspended });
    expect(await getDocument(app, closed.key, await acceptedKey(app, closed.key,
      { type: 'BUSINESS_CLOSURE_FACT_CERTIFICATE' }))).toMatchObject({ status: 'ACCEPTED' });
    expect(await getDocument(app, suspended.key, await acceptedKey(app, suspended.key,
      { type: 'BUSINESS_SUSPENSION_FACT_CERTIFICATE', showResidentNumber: true })))
      .toMatchObject({ status: 'ACCEPTED' });
    for (const [account, type, state] of [
      [closed, 'BUSINESS_SUSPENSION_FACT_CERTIFICATE', 'CLOSED'],
      [suspended, 'BUSINESS_CLOSURE_FACT_CERTIFICATE', 'SUSPENDED'],
      [{ key, accountId }, 'BUSINESS_CLOSURE_FACT_CERTIFICATE', 'ACTIVE'],
      [{ key, accountId }, 'BUSINESS_SUSPENSION_FACT_CERTIFICATE', 'ACTIVE'],
    ] as const) {
      const before = await ledgerSnapshot(app.platform.database.db, account.accountId, 'test');
      expectError(await issueDocument(app, account.key, { type }), 409,
        'DOCUMENT_NOT_APPLICABLE', new RegExp(`reports the owner business [0-9]{10} as ${state}`));
      expect(await ledgerSnapshot(app.platform.database.db, account.accountId, 'test'))
        .toEqual(before);
    }
  });

  it('never prints a resident number for a corporation', async () => {
    const account = await createOwnerAccount(app, { businessNumber: '1208100017',
      points: FUNDS });
    const issuanceKey = await acceptedKey(app, account.key,
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE', showResidentNumber: true });
    expect((await getDocument(app, account.key, issuanceKey)).options)
      .toMatchObject({ showResidentNumber: false });
  });
});

describe('the reference id', () => {
  it('is required, 1 to 255 characters', async () => {
    const body = JSON.stringify({ type: 'TAX_PAYMENT_CERTIFICATE' });
    const cases: Array<Record<string, string>> = [{},
      { 'service-client-reference-id': 'x'.repeat(256) },
      { 'service-client-reference-id': '   ' }];
    for (const headers of cases) {
      expectError(await app.server.inject({ ...request(key, 'POST', '/v1/documents/issue',
        { body, headers }) }), 400, 'INVALID_REQUEST');
    }
  });

  it('replays the same body: 202, the same issuanceKey, nothing charged again', async () => {
    const referenceId = newReferenceId();
    const body = { type: 'TAX_PAYMENT_CERTIFICATE', purpose: '대출' };
    const first = await acceptedKey(app, key, body, referenceId);
    const before = await ledgerSnapshot(app.platform.database.db, accountId, 'test');
    // Key order does not make another body.
    const again = await acceptedKey(app, key, { purpose: '대출', type: 'TAX_PAYMENT_CERTIFICATE' },
      referenceId);
    expect(again).toBe(first);
    expect(await ledgerSnapshot(app.platform.database.db, accountId, 'test')).toEqual(before);
  });

  it('is 409 IDEMPOTENCY_CONFLICT with another body', async () => {
    const referenceId = newReferenceId();
    await acceptedKey(app, key, { type: 'TAX_PAYMENT_CERTIFICATE' }, referenceId);
    const before = await ledgerSnapshot(app.platform.database.db, accountId, 'test');
    expectError(await issueDocument(app, key, { type: 'TAX_PAYMENT_CERTIFICATE',
      purpose: '다른 용도' }, referenceId), 409, 'IDEMPOTENCY_CONFLICT');
    expectError(await issueDocument(app, key, { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: CORPORATION_NUMBER }, referenceId), 409, 'IDEMPOTENCY_CONFLICT');
    expect(await ledgerSnapshot(app.platform.database.db, accountId, 'test')).toEqual(before);
  });

  it('makes one document of concurrent duplicates, holding one reservation', async () => {
    const account = await createOwnerAccount(app, { points: FUNDS });
    const referenceId = newReferenceId();
    const responses = await Promise.all(Array.from({ length: 8 }, () =>
      issueDocument(app, account.key, { type: 'CORPORATE_REGISTRY_SUBMISSION',
        corporationNumber: CORPORATION_NUMBER }, referenceId)));
    expect(responses.map((response) => response.statusCode)).toEqual(Array(8).fill(202));
    expect(new Set(responses.map((response) => response.json().issuanceKey)).size).toBe(1);
    const list = await app.server.inject(request(account.key, 'GET', '/v1/documents'));
    expect(list.json().documents).toHaveLength(1);
    expect(await balanceOf(account.accountId)).toEqual({ balance: FUNDS, reserved: 1_500,
      available: FUNDS - 1_500 });
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
  });

  it('is kept per key: another account may use the same value', async () => {
    const other = await createOwnerAccount(app, { points: FUNDS });
    const referenceId = newReferenceId();
    const mine = await acceptedKey(app, key, { type: 'TAX_PAYMENT_CERTIFICATE' }, referenceId);
    const theirs = await acceptedKey(app, other.key, { type: 'TAX_PAYMENT_CERTIFICATE' },
      referenceId);
    expect(theirs).not.toBe(mine);
  });
});

describe('points', () => {
  it('are 402 when the balance is too low, and 409 when reservations hold them', async () => {
    const poor = await createOwnerAccount(app, { points: 1_200 });
    expectError(await issueDocument(app, poor.key, { type: 'CORPORATE_REGISTRY_SUBMISSION',
      corporationNumber: CORPORATION_NUMBER }), 402, 'PAYMENT_REQUIRED');
    await acceptedKey(app, poor.key, { type: 'CORPORATE_REGISTRY_VIEW',
      corporationNumber: CORPORATION_NUMBER });
    expectError(await issueDocument(app, poor.key, { type: 'BUSINESS_REGISTRATION_CERTIFICATE' }),
      409, 'AVAILABLE_POINTS_INSUFFICIENT');
    expect(await balanceOf(poor.accountId)).toEqual({ balance: 1_200, reserved: 1_000,
      available: 200 });
  });

  it.each([
    [{ type: 'INCOME_AMOUNT_CERTIFICATE', taxYear: 2023, incomeCertificateKind: 'WAGE_EARNER' },
      500],
    [{ type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: CORPORATION_NUMBER }, 1_000],
    [{ type: 'CORPORATE_REGISTRY_SUBMISSION', corporationNumber: CORPORATION_NUMBER }, 1_500],
  ])('reserve at acceptance and capture when issued: %j costs %i', async (body, price) => {
    const account = await createOwnerAccount(app, { points: FUNDS });
    const issuanceKey = await acceptedKey(app, account.key, body);
    expect(await balanceOf(account.accountId)).toEqual({ balance: FUNDS, reserved: price,
      available: FUNDS - price });
    await app.documents.process(issuanceKey);
    expect(await getDocument(app, account.key, issuanceKey)).toMatchObject({ status: 'ISSUED',
      points: price });
    expect(await balanceOf(account.accountId)).toEqual({ balance: FUNDS - price, reserved: 0,
      available: FUNDS - price });
    // Running the job again (a retry) charges nothing more.
    await app.documents.process(issuanceKey);
    expect(await balanceOf(account.accountId)).toMatchObject({ balance: FUNDS - price });
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
    const entries = await app.platform.database.db.execute<{ kind: string; amount: number }>(
      sqlEntries(account.accountId));
    expect(entries.rows.filter((row) => row.kind === 'capture'))
      .toEqual([{ kind: 'capture', amount: -price }]);
  });

  it.each([
    [{ type: 'INCOME_AMOUNT_CERTIFICATE', taxYear: 2000,
      incomeCertificateKind: 'GLOBAL_INCOME_TAX_RETURN' }, 'NO_FILED_RETURN'],
    [{ type: 'CORPORATE_REGISTRY_VIEW', corporationNumber: '1101110000002' },
      'CORPORATION_NOT_FOUND'],
  ])('are released when the document fails: %j', async (body, code) => {
    const account = await createOwnerAccount(app, { points: FUNDS });
    const issuanceKey = await acceptedKey(app, account.key, body);
    await app.documents.process(issuanceKey);
    const document = await getDocument(app, account.key, issuanceKey);
    expect(document).toMatchObject({ status: 'FAILED', failure: { code }, pdfSha256: null });
    expect(await balanceOf(account.accountId)).toEqual({ balance: FUNDS, reserved: 0,
      available: FUNDS });
    const entries = await app.platform.database.db.execute<{ kind: string; amount: number }>(
      sqlEntries(account.accountId));
    expect(entries.rows.filter((row) => row.kind === 'capture')).toEqual([]);
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
  });

  it('are released when the certificate has expired at the tax authority', async () => {
    const account = await createOwnerAccount(app, { businessNumber: '1208100002',
      points: FUNDS });
    const issuanceKey = await acceptedKey(app, account.key,
      { type: 'BUSINESS_REGISTRATION_CERTIFICATE' });
    await app.documents.process(issuanceKey);
    expect(await getDocument(app, account.key, issuanceKey)).toMatchObject({ status: 'FAILED',
      failure: { code: 'CERTIFICATE_EXPIRED' } });
    expect(await balanceOf(account.accountId)).toMatchObject({ balance: FUNDS, reserved: 0 });
  });
});

import { sql } from 'drizzle-orm';
function sqlEntries(id: string) {
  return sql`select kind, amount_points::int as amount from point_ledger_entries
    where account_id = ${id} and environment = 'test' order by created_at`;
}

describe('the PDF', () => {
  it('is 409 DOCUMENT_NOT_ISSUED before the document is issued', async () => {
    const issuanceKey = await acceptedKey(app, key, { type: 'TAX_PAYMENT_CERTIFICATE' });
    expectError(await app.server.inject(request(key, 'GET',
      `/v1/documents/${issuanceKey}/pdf`)), 409, 'DOCUMENT_NOT_ISSUED');
  });

  it('is the upstream service\'s bytes, whose SHA-256 the status gives', async () => {
    const body = { type: 'VAT_TAX_BASE_CERTIFICATE', startYearMonth: '2024-01',
      endYearMonth: '2024-06', purpose: '금융기관 제출용' } as const;
    const issuanceKey = await acceptedKey(app, key, body);
    await app.documents.process(issuanceKey);
    const document = await getDocument(app, key, issuanceKey);
    const response = await app.server.inject(request(key, 'GET',
      `/v1/documents/${issuanceKey}/pdf`));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    const pdf = response.rawPayload;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(createHash('sha256').update(pdf).digest('hex')).toBe(document.pdfSha256);
    // The sandbox makes the same bytes from the same request: what it returned is what is served.
    const row = await app.platform.database.db.execute<{ accepted_at: Date;
      subject: Record<string, string>; options: Record<string, unknown> }>(sql`
      select accepted_at, subject, options from document_issuances
       where issuance_key = ${issuanceKey}`);
    const stored = row.rows[0]!;
    const again = await createSandboxCivilDocuments({ officerCheckSeconds: 0,
      now: () => new Date() }).issue({
      issuanceKey, type: body.type, options: stored.options as never,
      business: { businessNumber: stored.subject.businessNumber!, name: stored.subject.name!,
        representativeName: stored.subject.representativeName! },
      certificate: { serialNumber: '', notAfter: '' },
      acceptedAt: new Date(stored.accepted_at),
    }, AbortSignal.timeout(10_000));
    expect(again.kind).toBe('issued');
    expect(Buffer.compare((again as { pdf: Buffer }).pdf, pdf)).toBe(0);
  });
});

describe('reading', () => {
  it('keeps documents within their account and environment', async () => {
    const issuanceKey = await acceptedKey(app, key, { type: 'TAX_PAYMENT_CERTIFICATE' });
    const other = await app.createAccount();
    for (const [caller, url] of [[other.keys.test, `/v1/documents/${issuanceKey}`],
      [other.keys.test, `/v1/documents/${issuanceKey}/pdf`],
      [(await app.createAccount()).keys.live, `/v1/documents/${issuanceKey}`]] as const) {
      expectError(await app.server.inject(request(caller, 'GET', url)), 404, 'NOT_FOUND');
    }
    const list = await app.server.inject(request(other.keys.test, 'GET', '/v1/documents'));
    expect(list.json()).toEqual({ documents: [], nextCursor: null, hasMore: false });
  });

  it('lists newest first with a cursor, filtered by status and type', async () => {
    const account = await createOwnerAccount(app, { points: FUNDS });
    const keys: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      keys.push(await acceptedKey(app, account.key, { type: 'CORPORATE_REGISTRY_VIEW',
        corporationNumber: CORPORATION_NUMBER }));
    }
    await app.documents.process(keys[0]!);
    const first = await app.server.inject(request(account.key, 'GET', '/v1/documents?limit=2'));
    expect(first.json().documents.map((d: { issuanceKey: string }) => d.issuanceKey))
      .toEqual([keys[2], keys[1]]);
    const second = await app.server.inject(request(account.key, 'GET',
      `/v1/documents?limit=2&cursor=${first.json().nextCursor}`));
    expect(second.json()).toMatchObject({ documents: [{ issuanceKey: keys[0] }],
      nextCursor: null, hasMore: false });
    const issued = await app.server.inject(request(account.key, 'GET',
      '/v1/documents?status=ISSUED&type=CORPORATE_REGISTRY_VIEW'));
    expect(issued.json().documents.map((d: { issuanceKey: string }) => d.issuanceKey))
      .toEqual([keys[0]]);
    expectError(await app.server.inject(request(account.key, 'GET',
      '/v1/documents?cursor=bm9wZQ')), 400, 'INVALID_REQUEST');
  });
});
