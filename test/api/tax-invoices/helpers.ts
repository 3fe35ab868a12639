import { expect } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { seoulDate } from '../../../src/domain/business-days.ts';
import {
  corporateSubject,
  createTestCa,
  generateKeys,
  issueCertificate,
  signPriKey,
  type TestCa,
} from '../../areas/issuers/certificate-fixtures.ts';
import type { Platform } from '../../../src/platform/platform.ts';
import { basicAuth, createTestApp, useApp, type TestApp } from '../../helpers/app.ts';
import { pollUntil } from '../../helpers/poll.ts';

// Requests and fixtures shared by the tax-invoice API tests: a supplier registered with a joint
// certificate, a valid invoice body, and the calls that issue and read invoices.

type Injector = { server: { inject(options: InjectOptions): Promise<LightMyRequestResponse> } };
type WithIssuers = Injector & { issuers: { processUpload(id: string): Promise<unknown> } };
type WithAccounts = WithIssuers & { platform: Pick<Platform, 'accounts'> };

export const SUPPLIER_NUMBER = '1234567891';
export const RECIPIENT_NUMBER = '2208162517';

export function request(
  key: string,
  method: InjectOptions['method'],
  url: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): InjectOptions {
  const headers: Record<string, string> = { authorization: basicAuth(key), ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const payload = options.body === undefined ? undefined
    : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  return { method, url, headers, ...(payload === undefined ? {} : { payload }) };
}

let ca: Promise<TestCa> | undefined;
let keys: Promise<CryptoKeyPair> | undefined;

export type Supplier = { issuerId: string; supplierKey: string; identificationNumber: string };

// A new account whose test key has a registered supplier: where most tax-invoice tests start.
export type SupplierAccount = {
  accountId: string;
  key: string;
  liveKey: string;
  supplier: Supplier;
};

export async function createSupplierAccount(
  app: WithAccounts,
  name = 'Test account',
): Promise<SupplierAccount> {
  const account = await app.platform.accounts.createAccount({ name, plan: 'FREE' });
  const supplier = await registerSupplier(app, account.keys.test);
  return { accountId: account.accountId, key: account.keys.test, liveKey: account.keys.live,
    supplier };
}

// An app with its jobs running that transmits as soon as an invoice is signed.
export function createIssuingApp(env: Record<string, string> = {}): Promise<TestApp> {
  return createTestApp({ jobs: true,
    env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0', ...env } });
}

// One app and one supplier account for all the tests of a file (useApp), handed to `receive`.
export function useSupplierAccount<A extends WithAccounts & { close(): Promise<void> }>(
  options: { createApp: () => Promise<A>; name?: string },
  receive: (made: SupplierAccount & { app: A }) => void,
): void {
  useApp(options.createApp, async (app) => {
    receive({ app, ...(await createSupplierAccount(app, options.name)) });
  });
}

// An issuer of `key` with a registered certificate. The upload is processed at once instead of
// waiting for its job, so tests without workers can issue.
export async function registerSupplier(
  app: WithIssuers,
  key: string,
  options: { identificationNumber?: string; organizationName?: string;
    certificate?: boolean } = {},
): Promise<Supplier> {
  const identificationNumber = options.identificationNumber ?? SUPPLIER_NUMBER;
  const organizationName = options.organizationName ?? '주식회사 이택스';
  const created = await app.server.inject(request(key, 'POST', '/v1/issuers', { body: {
    identificationNumber, organizationName, representativeName: '홍길동',
    contactEmail: 'supplier@example.co.kr' } }));
  expect(created.statusCode).toBe(201);
  const issuer = created.json() as { issuerId: string; supplierKey: string };
  if (options.certificate === false) return { ...issuer, identificationNumber };
  ca ??= createTestCa();
  keys ??= generateKeys();
  const certificate = await issueCertificate(await ca, { keys: await keys,
    subject: corporateSubject(organizationName, identificationNumber) });
  const upload = await app.server.inject(request(key, 'POST',
    `/v1/issuers/${issuer.issuerId}/certificates`, { body: {
      signCert: certificate.certificateDer.toString('base64'),
      signPri: signPriKey(certificate.pkcs8, 'pass1234!', 'pbes2').toString('base64'),
      password: 'pass1234!' } }));
  expect(upload.statusCode, upload.body).toBe(202);
  // With workers running, the registration job may process the upload first; its record is
  // then the latest of the issuer's history.
  const record = await app.issuers.processUpload(upload.json().identifier) ??
    (await app.server.inject(request(key, 'GET',
      `/v1/issuers/${issuer.issuerId}/certificates/latestHistory`))).json().latestHistory;
  expect(record).toMatchObject({ code: 'REGISTERED' });
  return { ...issuer, identificationNumber };
}

export function today(): string {
  return seoulDate(new Date());
}

export function invoiceBody(overrides: Record<string, unknown> = {}) {
  const date = today();
  return {
    date,
    purpose: 'CLAIM',
    supplier: {
      identificationNumber: SUPPLIER_NUMBER,
      organizationName: '주식회사 이택스',
      representativeName: '홍길동',
      address: '서울특별시 중구 세종대로 110',
      manager: { email: 'tax@example.co.kr', name: '김담당' },
    },
    supplied: {
      identificationNumber: RECIPIENT_NUMBER,
      organizationName: '주식회사 받는곳',
      representativeName: '이영희',
      managers: [{ email: 'account@example.com' }],
    },
    items: [
      { date, name: '클라우드 사용료', quantity: 10, unitPrice: 5_000, supplyCost: 50_000,
        tax: 5_000 },
      { date, name: '기술 지원', supplyCost: 150_000, tax: 15_000 },
    ],
    description: '11월 이용료',
    ...overrides,
  };
}

// POSTs a request that makes documents: Supplier-Key, and a reference id when given.
export function postWithSupplier(
  app: Injector,
  key: string,
  path: string,
  options: { supplierKey: string; body: unknown; referenceId?: string | undefined },
) {
  const headers: Record<string, string> = { 'supplier-key': options.supplierKey };
  if (options.referenceId !== undefined) {
    headers['service-client-reference-id'] = options.referenceId;
  }
  return app.server.inject(request(key, 'POST', path, { body: options.body, headers }));
}

export function issue(
  app: Injector,
  key: string,
  supplierKey: string,
  body: unknown = invoiceBody(),
  referenceId?: string,
) {
  return postWithSupplier(app, key, '/v1/taxInvoices/issue', { supplierKey, body, referenceId });
}

export type TaxInvoiceView = {
  issuanceKey: string; status: string; ntsTransactionId: string | null;
  issuedAt: string | null; failure: { code: string; message: string } | null;
  totals: { supplyCost: number; tax: number; total: number };
  [field: string]: unknown;
};

export async function getInvoice(app: Injector, key: string, issuanceKey: string) {
  const response = await app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}`));
  expect(response.statusCode).toBe(200);
  return response.json() as TaxInvoiceView;
}

// Polls until the document reaches one of `statuses` (its steps run on the workers).
export async function waitForStatus(
  app: Injector,
  key: string,
  issuanceKey: string,
  statuses: string[],
): Promise<TaxInvoiceView> {
  const invoice = await pollUntil(() => getInvoice(app, key, issuanceKey),
    (seen) => statuses.includes(seen.status));
  expect(statuses).toContain(invoice.status);
  return invoice;
}

// Issues an invoice and waits until the jobs have transmitted it.
export async function issueTransmitted(
  app: Injector,
  key: string,
  supplierKey: string,
  body: unknown = invoiceBody(),
): Promise<TaxInvoiceView> {
  const response = await issue(app, key, supplierKey, body);
  expect(response.statusCode, response.body).toBe(200);
  const { issuanceKey } = response.json() as { issuanceKey: string };
  const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
  expect(invoice.status).toBe('TRANSMITTED');
  return invoice;
}

// POST /v1/taxInvoices/{issuanceKey}/amend/{reason}; `reason` is the path segment, such as
// `termination`. Without a body nothing is sent, as for doubleIssuance.
export function amend(
  app: Injector,
  key: string,
  supplierKey: string,
  target: { issuanceKey: string; reason: string; body?: unknown; referenceId?: string },
) {
  const headers: Record<string, string> = { 'supplier-key': supplierKey };
  if (target.referenceId !== undefined) {
    headers['service-client-reference-id'] = target.referenceId;
  }
  return app.server.inject(request(key, 'POST',
    `/v1/taxInvoices/${target.issuanceKey}/amend/${target.reason}`,
    { body: target.body, headers }));
}
