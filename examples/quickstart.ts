// From a test API key to a transmitted tax invoice and a verified webhook, with @etax/sdk:
// the program of docs/quickstart.md. Run it against a local server started with
// WEBHOOK_PRIVATE_TARGETS_ALLOWED=true (its webhook receiver listens on this machine):
//
//   ETAX_API_KEY=test_… npx tsx examples/quickstart.ts
//
// ETAX_BASE_URL (default http://localhost:8080) names another server. The PDF is written to
// ./quickstart-invoice.pdf, or to ETAX_PDF_PATH. The program exits when it is done, and removes
// what it made only for itself: the key file on disk, its webhook receiver and endpoint.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createEtaxClient,
  downloadTaxInvoicePdf,
  isEtaxError,
  issueStatus,
  issueTaxInvoice,
  newReferenceId,
  paginate,
  unwrap,
  verifyWebhookSignature,
  type TaxInvoiceDraft,
} from '@etax/sdk';

// A sandbox business number (its checksum is valid) and a recipient.
const SUPPLIER_NUMBER = '1248100998';
const RECIPIENT_NUMBER = '2208162517';
const POLL_INTERVAL_MS = 500;
const WAIT_MS = 60_000;

const apiKey = process.env.ETAX_API_KEY;
if (!apiKey?.startsWith('test_')) {
  console.error('Set ETAX_API_KEY to a test key (test_…): etax account create prints one.');
  process.exit(2);
}
const etax = createEtaxClient({ apiKey, baseUrl: process.env.ETAX_BASE_URL });
const step = (text: string) => console.log(`✓ ${text}`);

async function waitFor<T>(what: string, check: () => Promise<T | null>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = await check();
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

// `promise`, or an error once `ms` have passed; the timer never outlives the answer, so the
// program ends as soon as its work does.
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// Today in Korea, the write date of the invoice.

const today = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Asia/Seoul' }).format(new Date());

// 1. The supplier: an issuer, and its joint certificate from the sandbox CA. A key has one
// active issuer per business: on a second run the first one is found and used again.
async function supplierIssuer() {
  try {
    return await unwrap(etax.POST('/v1/issuers', { body: {
      identificationNumber: SUPPLIER_NUMBER, organizationName: '주식회사 퀵스타트',
      representativeName: '홍길동' } }));
  } catch (error) {
    if (!isEtaxError(error, 'ISSUER_ALREADY_REGISTERED')) throw error;
    for await (const existing of paginate(etax, '/v1/issuers', { query: { limit: 100 } })) {
      if (existing.identificationNumber === SUPPLIER_NUMBER) return existing;
    }
    throw error;
  }
}
const issuer = await supplierIssuer();
step(`issuer ${issuer.issuerId}, supplierKey ${issuer.supplierKey}`);

const folder = mkdtempSync(join(tmpdir(), 'etax-npki-'));
const etaxCli = fileURLToPath(new URL('../bin/etax.js', import.meta.url));
const made = JSON.parse(execFileSync(process.execPath, [etaxCli, 'sandbox', 'certificate',
  '--business-number', SUPPLIER_NUMBER, '--out', folder, '--json'], { encoding: 'utf8' })) as
  { password: string };
const certificate = {
  signCert: readFileSync(join(folder, 'signCert.der')).toString('base64'),
  signPri: readFileSync(join(folder, 'signPri.key')).toString('base64'),
  password: made.password,
};
// The key file is not left on disk once it is read.
rmSync(folder, { recursive: true, force: true });
const upload = await unwrap(etax.POST('/v1/issuers/{issuerId}/certificates', {
  params: { path: { issuerId: issuer.issuerId } }, body: certificate }));
const registered = await waitFor('the certificate check', async () => {
  const { data } = await etax.GET('/v1/issuers/{issuerId}/certificates/latestHistory',
    { params: { path: { issuerId: issuer.issuerId } } });
  return data?.latestHistory.identifier === upload.identifier ? data.latestHistory : null;
});
if (registered.code !== 'REGISTERED') throw new Error(`not registered: ${registered.message}`);
step('sandbox certificate registered');

// 2. A webhook receiver on this machine, and an endpoint that points at it.
let resolveDelivery: (event: { type: string; data: { issuanceKey?: string } }) => void;
const delivered = new Promise<{ type: string; data: { issuanceKey?: string } }>((resolve) => {
  resolveDelivery = resolve;
});
let secret = '';
const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const payload = Buffer.concat(chunks);
    const verified = verifyWebhookSignature({ payload,
      header: request.headers['etax-signature'] as string | undefined, secrets: [secret] });
    response.statusCode = verified ? 204 : 400;
    response.end();
    if (verified) resolveDelivery(JSON.parse(payload.toString('utf8')));
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const endpoint = await unwrap(etax.POST('/v1/webhookEndpoints', { body: {
  url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/etax/webhooks`,
  events: ['TAX_INVOICE_ISSUANCE_SUCCESS', 'TAX_INVOICE_ISSUANCE_FAILURE'] } }));
secret = endpoint.secret;
step(`webhook endpoint ${endpoint.id} → ${endpoint.url}`);

// The receiver lives only as long as this program: its endpoint is removed and the receiver
// closed however the steps below end.
try {
  // 3. Issue, with the supplier's key and a reference id of our own.
  const clientReferenceId = newReferenceId('quickstart');
  const draft: TaxInvoiceDraft = {
    date: today,
    purpose: 'CLAIM',
    supplier: { identificationNumber: SUPPLIER_NUMBER, organizationName: '주식회사 퀵스타트',
      representativeName: '홍길동', address: '서울특별시 중구 세종대로 110',
      manager: { email: 'tax@example.co.kr', name: '김담당' } },
    supplied: { identificationNumber: RECIPIENT_NUMBER, organizationName: '주식회사 받는곳',
      representativeName: '이영희', managers: [{ email: 'account@example.com' }] },
    items: [{ date: today, name: '클라우드 사용료', quantity: 10, unitPrice: 5_000,
      supplyCost: 50_000, tax: 5_000 }],
  } as TaxInvoiceDraft;
  const { issuanceKey } = await issueTaxInvoice(etax, { supplierKey: issuer.supplierKey,
    clientReferenceId, draft });
  step(`issued ${issuanceKey} (reference ${clientReferenceId})`);

  // 4. Poll its status until the tax authority has it.
  const final = await waitFor('transmission', async () => {
    const status = await issueStatus(etax, clientReferenceId);
    return status && ['TRANSMITTED', 'FAILED'].includes(status.status) ? status : null;
  });
  if (final.status !== 'TRANSMITTED') throw new Error(`${final.status}: ${final.message}`);
  step(`status ${final.status}: ${final.message}`);

  // 5. The signed webhook, checked by the receiver above.
  const event = await within('the webhook', WAIT_MS, delivered);
  step(`webhook ${event.type} for ${event.data.issuanceKey}, signature verified`);

  // 6. The PDF.
  const pdfPath = process.env.ETAX_PDF_PATH ?? 'quickstart-invoice.pdf';
  writeFileSync(pdfPath, await downloadTaxInvoicePdf(etax, issuanceKey));
  step(`PDF written to ${pdfPath}`);
} finally {
  await etax.DELETE('/v1/webhookEndpoints/{endpointId}',
    { params: { path: { endpointId: endpoint.id } } });
  receiver.close();
}
