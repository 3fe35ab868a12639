import {
  corporateSubject,
  createTestCa,
  generateKeys,
  issueCertificate,
  signPriKey,
} from '../test/areas/issuers/certificate-fixtures.ts';
import { BENCH_MERCHANT, BENCH_SUPPLIER, basicAuth } from './scenarios.ts';

// Registers an issuer with a joint certificate for each of the given test keys through the
// server's own API, and waits until its registration job has registered every certificate, so
// tax-invoice scenarios measure issuance and not a missing certificate. One test CA and one key
// pair serve every certificate: generating RSA keys is the slow part.

const REGISTRATION_POLL_MS = 200;
const REGISTRATION_WAIT_MS = 60_000;
const PASSWORD = 'bench-password-1';

type Supplier = { key: string; supplierKey: string };

async function call(baseUrl: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: basicAuth(key),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = await response.json() as Record<string, unknown>;
  return { status: response.status, json };
}

async function waitForRegistration(baseUrl: string, key: string, issuerId: string) {
  const deadline = Date.now() + REGISTRATION_WAIT_MS;
  for (;;) {
    const { status, json } = await call(baseUrl, key, 'GET',
      `/v1/issuers/${issuerId}/certificates/latestHistory`);
    const code = (json.latestHistory as { code?: string } | undefined)?.code;
    if (status === 200 && code === 'REGISTERED') return;
    if (status === 200 || Date.now() > deadline) {
      throw new Error(`certificate of ${issuerId} not registered: ${status} ${code}`);
    }
    await new Promise((resolve) => setTimeout(resolve, REGISTRATION_POLL_MS));
  }
}

// Registers an issuer without a certificate for each key, as the merchant of cash receipt
// scenarios (a merchant needs none). Its number differs from the supplier's, so a key can have
// both.
export async function registerMerchants(baseUrl: string, keys: readonly string[]):
  Promise<Supplier[]> {
  return Promise.all(keys.map(async (key) => {
    const issuer = await call(baseUrl, key, 'POST', '/v1/issuers',
      { ...BENCH_MERCHANT, representativeName: '홍길동' });
    if (issuer.status !== 201) throw new Error(`merchant not created: ${issuer.status}`);
    return { key, supplierKey: issuer.json.supplierKey as string };
  }));
}

export async function registerSuppliers(baseUrl: string, keys: readonly string[]):
  Promise<Supplier[]> {
  const ca = await createTestCa();
  const certificate = await issueCertificate(ca, { keys: await generateKeys(),
    subject: corporateSubject(BENCH_SUPPLIER.organizationName,
      BENCH_SUPPLIER.identificationNumber) });
  const upload = {
    signCert: certificate.certificateDer.toString('base64'),
    signPri: signPriKey(certificate.pkcs8, PASSWORD, 'pbes2').toString('base64'),
    password: PASSWORD,
  };
  return Promise.all(keys.map(async (key) => {
    const issuer = await call(baseUrl, key, 'POST', '/v1/issuers',
      { ...BENCH_SUPPLIER, representativeName: '홍길동' });
    if (issuer.status !== 201) throw new Error(`issuer not created: ${issuer.status}`);
    const issuerId = issuer.json.issuerId as string;
    const uploaded = await call(baseUrl, key, 'POST', `/v1/issuers/${issuerId}/certificates`,
      upload);
    if (uploaded.status !== 202) throw new Error(`certificate not accepted: ${uploaded.status}`);
    await waitForRegistration(baseUrl, key, issuerId);
    return { key, supplierKey: issuer.json.supplierKey as string };
  }));
}
