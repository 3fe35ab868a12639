import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import {
  corporateSubject,
  createTestCa,
  generateKeys,
  issueCertificate,
  signPriKey,
  type TestCa,
} from '../../areas/issuers/certificate-fixtures.ts';
import type { TestApp } from '../../helpers/app.ts';
import { request } from '../tax-invoices/helpers.ts';

// Requests and fixtures shared by the document API tests: an account whose owner business has a
// registered joint certificate, and the calls that request and read documents.

export { request };

export const OWNER_NUMBER = '1234567891';
export const OWNER_NAME = '주식회사 이택스';
// The official worked example of a corporate registration number: a stock company.
export const CORPORATION_NUMBER = '1101110062432';

let ca: Promise<TestCa> | undefined;
let keys: Promise<CryptoKeyPair> | undefined;

export async function setOwnerBusiness(
  app: TestApp,
  key: string,
  body: { businessNumber?: string; name?: string; representativeName?: string } = {},
): Promise<{ issuerId: string; businessNumber: string }> {
  const response = await app.server.inject(request(key, 'PUT', '/v1/account/business', {
    body: { businessNumber: OWNER_NUMBER, name: OWNER_NAME, representativeName: '홍길동',
      ...body } }));
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

// Registers a joint certificate for the owner business's issuer through the issuers area's
// certificate upload, processed at once instead of waiting for its job.
async function registerOwnerCertificate(
  app: TestApp,
  key: string,
  owner: { issuerId: string; businessNumber: string },
  name = OWNER_NAME,
): Promise<void> {
  ca ??= createTestCa();
  keys ??= generateKeys();
  const certificate = await issueCertificate(await ca, { keys: await keys,
    subject: corporateSubject(name, owner.businessNumber) });
  const upload = await app.server.inject(request(key, 'POST',
    `/v1/issuers/${owner.issuerId}/certificates`, { body: {
      signCert: certificate.certificateDer.toString('base64'),
      signPri: signPriKey(certificate.pkcs8, 'pass1234!', 'pbes2').toString('base64'),
      password: 'pass1234!' } }));
  expect(upload.statusCode, upload.body).toBe(202);
  const record = await app.issuers.processUpload(upload.json().identifier) ??
    (await app.server.inject(request(key, 'GET',
      `/v1/issuers/${owner.issuerId}/certificates/latestHistory`))).json().latestHistory;
  expect(record).toMatchObject({ code: 'REGISTERED' });
}

// A new account whose test environment has an owner business with a registered certificate.
export async function createOwnerAccount(
  app: TestApp,
  options: { businessNumber?: string; points?: number } = {},
) {
  const account = await app.createFundedAccount(options.points ?? 0);
  const owner = await setOwnerBusiness(app, account.keys.test,
    options.businessNumber === undefined ? {} : { businessNumber: options.businessNumber });
  await registerOwnerCertificate(app, account.keys.test, owner);
  return { accountId: account.accountId, key: account.keys.test, liveKey: account.keys.live,
    owner };
}

let referenceCounter = 0;
export function newReferenceId(): string {
  referenceCounter += 1;
  return `ref-${process.pid}-${Date.now()}-${referenceCounter}`;
}

export function issueDocument(
  app: TestApp,
  key: string,
  body: unknown,
  referenceId: string = newReferenceId(),
): Promise<LightMyRequestResponse> {
  return app.server.inject(request(key, 'POST', '/v1/documents/issue', { body,
    headers: { 'service-client-reference-id': referenceId } }));
}

export async function acceptedKey(
  app: TestApp,
  key: string,
  body: unknown,
  referenceId?: string,
): Promise<string> {
  const response = await issueDocument(app, key, body, referenceId);
  expect(response.statusCode, response.body).toBe(202);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

export async function getDocument(app: TestApp, key: string, issuanceKey: string) {
  const response = await app.server.inject(request(key, 'GET', `/v1/documents/${issuanceKey}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { status: string; issueNumber: string | null;
    pdfSha256: string | null; failure: { code: string; message: string } | null;
    type: string; points: number; options: Record<string, unknown> };
}
