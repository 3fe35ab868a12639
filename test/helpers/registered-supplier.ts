import { expect } from 'vitest';
import {
  corporateSubject,
  createTestCa,
  issueCertificate,
  signPriKey,
} from '../areas/issuers/certificate-fixtures.ts';
import { SUPPLIER_NUMBER } from '../api/tax-invoices/helpers.ts';
import { pollUntil, type PollOptions } from './poll.ts';

type Call = (method: string, path: string, body?: unknown) =>
  Promise<{ status: number; body: Record<string, unknown> }>;

// A supplier whose certificate a server's registration job has registered, made through the
// API of running processes; answers its Supplier-Key.
export async function registerSupplier(call: Call, poll: PollOptions): Promise<string> {
  const issuer = await call('POST', '/v1/issuers', { identificationNumber: SUPPLIER_NUMBER,
    organizationName: '주식회사 이택스', representativeName: '홍길동' });
  expect(issuer.status).toBe(201);
  const certificate = await issueCertificate(await createTestCa(),
    { subject: corporateSubject('주식회사 이택스', SUPPLIER_NUMBER) });
  const upload = await call('POST', `/v1/issuers/${issuer.body.issuerId}/certificates`, {
    signCert: certificate.certificateDer.toString('base64'),
    signPri: signPriKey(certificate.pkcs8, 'pass1234!', 'pbes2').toString('base64'),
    password: 'pass1234!',
  });
  expect(upload.status).toBe(202);
  const history = await pollUntil(() => call('GET',
    `/v1/issuers/${issuer.body.issuerId}/certificates/latestHistory`),
  (response) => response.status === 200, poll);
  expect(history.body.latestHistory).toMatchObject({ code: 'REGISTERED' });
  return issuer.body.supplierKey as string;
}
