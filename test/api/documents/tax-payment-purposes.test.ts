// The purpose of a 납세증명서 (TAX_PAYMENT_CERTIFICATE, docs/documents.md § The purpose of a
// 납세증명서): `submissionPurpose` takes the cases 국세징수법 제107조① names, or OTHER, and a
// payment from a public body (PAYMENT_RECEIPT, 대금수령) names its payer. Each refused request is
// sent to the request and to its validation, which answer the same status and code and charge
// nothing; each accepted one keeps the options as given, the old free-text `purpose` alone
// included, and the sandbox prints them on the certificate.
import { extractText, getDocumentProxy } from 'unpdf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { ledgerSnapshot } from '../../helpers/ledger-audit.ts';
import {
  acceptedKey,
  createOwnerAccount,
  getDocument,
  issueDocument,
  newReferenceId,
  request,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;

beforeAll(async () => {
  app = await createTestApp({ jobs: true,
    env: { WORKERS_ENABLED: 'false', TEST_SIGNUP_POINTS: '0' } });
  ({ key, accountId } = await createOwnerAccount(app, { points: 100_000 }));
});
afterAll(async () => {
  await app?.close();
});

const TYPE = 'TAX_PAYMENT_CERTIFICATE';
const PAYER = { name: '조달청', businessRegistrationNumber: '138-83-00007' };

function validate(body: unknown) {
  return app.server.inject(request(key, 'POST', '/v1/documents:validate', { body,
    headers: { 'service-client-reference-id': newReferenceId() } }));
}

describe('submissionPurpose and payer of a 납세증명서', () => {
  it.each([
    ['대금수령 without its payer', { type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT' },
      'INVALID_REQUEST'],
    ['a payer without 대금수령', { type: TYPE, submissionPurpose: 'EMIGRATION', payer: PAYER },
      'INVALID_REQUEST'],
    ['a payer without any purpose', { type: TYPE, payer: PAYER }, 'INVALID_REQUEST'],
    ['a purpose the law does not name', { type: TYPE, submissionPurpose: 'LOAN' },
      'INVALID_REQUEST'],
    ['a payer without a name', { type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT',
      payer: { businessRegistrationNumber: '1388300007' } }, 'INVALID_REQUEST'],
    ['a payer number of nine digits', { type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT',
      payer: { name: '조달청', businessRegistrationNumber: '138830000' } }, 'INVALID_REQUEST'],
    ['a payer number failing its checksum', { type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT',
      payer: { name: '조달청', businessRegistrationNumber: '1388300008' } },
    'INVALID_BUSINESS_REGISTRATION_NUMBER'],
    ['a purpose on another type', { type: 'BUSINESS_REGISTRATION_CERTIFICATE',
      submissionPurpose: 'OTHER' }, 'INVALID_REQUEST'],
  ])('refuses %s with 400, as its validation does, charging nothing', async (_name, body,
    code) => {
    const before = await ledgerSnapshot(app.platform.database.db, accountId, 'test');
    expectError(await validate(body), 400, code);
    expectError(await issueDocument(app, key, body), 400, code);
    expect(await ledgerSnapshot(app.platform.database.db, accountId, 'test')).toEqual(before);
  });

  it.each([
    [{ type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT', payer: PAYER },
      { submissionPurpose: 'PAYMENT_RECEIPT',
        payer: { name: '조달청', businessRegistrationNumber: '1388300007' }, purpose: null }],
    [{ type: TYPE, submissionPurpose: 'PAYMENT_RECEIPT', payer: { name: '서울특별시' } },
      { submissionPurpose: 'PAYMENT_RECEIPT',
        payer: { name: '서울특별시', businessRegistrationNumber: null } }],
    [{ type: TYPE, submissionPurpose: 'RESIDENCE_PERMIT' },
      { submissionPurpose: 'RESIDENCE_PERMIT', payer: null }],
    [{ type: TYPE, submissionPurpose: 'EMIGRATION' },
      { submissionPurpose: 'EMIGRATION', payer: null }],
    [{ type: TYPE, submissionPurpose: 'OTHER', purpose: '금융기관 제출용' },
      { submissionPurpose: 'OTHER', purpose: '금융기관 제출용' }],
    // The free text alone, as before submissionPurpose existed.
    [{ type: TYPE, purpose: '입찰 참가' },
      { submissionPurpose: null, payer: null, purpose: '입찰 참가' }],
  ])('accepts %j and keeps its options', async (body, options) => {
    const validation = await validate(body);
    expect(validation.statusCode, validation.body).toBe(200);
    expect(validation.json()).toMatchObject({ document: { options } });
    const issuanceKey = await acceptedKey(app, key, body);
    expect((await getDocument(app, key, issuanceKey)).options).toMatchObject(options);
  });

  it('prints the purpose and the payer on the sandbox certificate', async () => {
    const issuanceKey = await acceptedKey(app, key, { type: TYPE,
      submissionPurpose: 'PAYMENT_RECEIPT', payer: PAYER });
    await app.documents.process(issuanceKey);
    const response = await app.server.inject(request(key, 'GET',
      `/v1/documents/${issuanceKey}/pdf`));
    expect(response.statusCode).toBe(200);
    const { text } = await extractText(await getDocumentProxy(
      new Uint8Array(response.rawPayload)), { mergePages: true });
    const compact = text.replace(/\s+/g, '');
    expect(compact).toContain('대금수령');
    expect(compact).toContain('조달청(138-83-00007)');
  });
});
