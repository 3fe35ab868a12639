// Live keys issue through the operator's transmission gateway (TAX_INVOICE_GATEWAY_URL), here a
// fake gateway on 127.0.0.1 that answers by recipient number: the live balance pays, the
// gateway's approval number or rejection ends the document, and an answer outside the contract
// stages a later attempt instead of failing it. Test keys on the same app keep the sandbox.
import { createHash, X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TRANSMISSION_RETRY_DELAYS_SECONDS,
} from '../../../src/areas/tax-invoices/processing/transmission-job.ts';
import {
  businessRegistrationCheckDigit,
} from '../../../src/domain/business-registration-number.ts';
import { checkIdentity, readCertificate } from '../../../src/domain/joint-certificate.ts';
import { verifyXmlDocument } from '../../../src/domain/xml-signature.ts';
import type { TransmissionRequest } from '../../../src/upstream/tax-invoices/index.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { sendJson, startFakeServer, type FakeServer } from '../../helpers/fake-server.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  invoiceBody,
  issue,
  registerSupplier,
  request,
  waitForStatus,
  type Supplier,
} from './helpers.ts';

// A valid business registration number for each way the fake gateway answers.
function recipientNumber(firstNine: string): string {
  return `${firstNine}${businessRegistrationCheckDigit(firstNine)}`;
}
const RECIPIENTS = {
  accepted: recipientNumber('301810001'),
  rejected: recipientNumber('301810002'),
  garbage: recipientNumber('301810003'),
  unstorable: recipientNumber('301810004'),
};

type Received = { url?: string; contentType?: string; body: TransmissionRequest;
  receivedAtMs: number };

const received: Received[] = [];
let server: FakeServer;
let app: TestApp;
let liveKey: string;
let testKey: string;
let accountId: string;
let liveSupplier: Supplier;
let testSupplier: Supplier;

// etax is the issuing system: the gateway transmits under the number etax signed. A document
// issued before the standard XML has none; the gateway numbers it.
function gatewayApprovalNumber(request: TransmissionRequest): string {
  if (request.approvalNumber !== null) return request.approvalNumber;
  const serial = BigInt(`0x${createHash('sha256').update(request.issuanceKey).digest('hex')}`)
    % 10n ** 8n;
  return `${request.writeDate.replaceAll('-', '')}77000000${serial.toString().padStart(8, '0')}`;
}

function reply(body: TransmissionRequest): { status: number; text: string } {
  switch (body.recipientNumber) {
    case RECIPIENTS.rejected:
      return { status: 200, text: JSON.stringify({ result: 'REJECTED', code: 'NTS_DUPLICATE',
        message: '이미 전송된 세금계산서입니다.' }) };
    case RECIPIENTS.unstorable:
      return { status: 200, text: JSON.stringify({ result: 'REJECTED', code: 'NTS_REJECTED',
        message: 'rejected\u0000' }) };
    case RECIPIENTS.garbage:
      return { status: 200, text: '<html>gateway maintenance</html>' };
    default:
      return { status: 200, text: JSON.stringify({ result: 'ACCEPTED',
        ntsTransactionId: gatewayApprovalNumber(body) }) };
  }
}

async function startGateway(): Promise<string> {
  server = await startFakeServer((incoming, response) => {
    const body = JSON.parse(incoming.text) as TransmissionRequest;
    received.push({ url: incoming.url, contentType: incoming.headers['content-type'], body,
      receivedAtMs: Date.now() });
    const { status, text } = reply(body);
    sendJson(response, status, text);
  });
  return `${server.origin}/gateway/`;
}

beforeAll(async () => {
  const gatewayUrl = await startGateway();
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0',
    TAX_INVOICE_GATEWAY_URL: gatewayUrl, TAX_INVOICE_NTS_SYSTEM_CODE: '41000008' } });
  const account = await app.createAccount();
  accountId = account.accountId;
  liveKey = account.keys.live;
  testKey = account.keys.test;
  await app.platform.points.grant({ accountId, environment: 'live', points: 1_000 });
  liveSupplier = await registerSupplier(app, liveKey);
  testSupplier = await registerSupplier(app, testKey);
});
afterAll(async () => {
  await app?.close();
  await server?.close();
});

const balances = async () => ({
  live: (await app.platform.points.getBalance({ accountId, environment: 'live' })).balance,
  test: (await app.platform.points.getBalance({ accountId, environment: 'test' })).balance,
});

function bodyFor(recipient: string) {
  const body = invoiceBody();
  return { ...body, supplied: { ...body.supplied, identificationNumber: recipient } };
}

async function issued(key: string, supplier: Supplier, recipient: string): Promise<string> {
  const response = await issue(app, key, supplier.supplierKey, bodyFor(recipient));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

const requestsFor = (issuanceKey: string) =>
  received.filter((entry) => entry.body.issuanceKey === issuanceKey);

async function statusHistory(issuanceKey: string): Promise<string[]> {
  const result = await app.platform.database.pool.query(
    'select to_status from tax_invoice_status_changes where issuance_key = $1 order by id',
    [issuanceKey]);
  return result.rows.map((row) => row.to_status as string);
}

describe('issuing with a live key', () => {
  it('charges the live balance 100 points and ends TRANSMITTED with the number it signed',
    async () => {
      const before = await balances();
      const issuanceKey = await issued(liveKey, liveSupplier, RECIPIENTS.accepted);
      const invoice = await waitForStatus(app, liveKey, issuanceKey, ['TRANSMITTED', 'FAILED']);
      const [sent] = requestsFor(issuanceKey);
      expect(invoice).toMatchObject({ status: 'TRANSMITTED', failure: null,
        ntsTransactionId: sent!.body.approvalNumber });
      expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000008[0-9a-z]{8}$/);
      expect(await statusHistory(issuanceKey))
        .toEqual(['PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED']);
      expect(await balances()).toEqual({ live: before.live - 100, test: before.test });
    });

  it('sends the gateway the signed document, its signature and the certificate', async () => {
    const issuanceKey = await issued(liveKey, liveSupplier, RECIPIENTS.accepted);
    await waitForStatus(app, liveKey, issuanceKey, ['TRANSMITTED', 'FAILED']);
    const sent = requestsFor(issuanceKey);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ url: '/gateway/taxInvoices:transmit',
      contentType: 'application/json', body: { issuanceKey, writeDate: invoiceBody().date,
        supplierNumber: liveSupplier.identificationNumber,
        recipientNumber: RECIPIENTS.accepted } });
    // The signed standard XML, whose IssueID is the approval number sent beside it.
    const { signedDocument, signature, certificate, approvalNumber } = sent[0]!.body;
    const x509 = new X509Certificate(Buffer.from(certificate, 'base64'));
    expect(x509.subject).toContain(liveSupplier.identificationNumber);
    expect(verifyXmlDocument(signedDocument)).toEqual({ valid: true,
      certificate: Buffer.from(certificate, 'base64') });
    expect(signedDocument).toContain(`<ds:SignatureValue>${signature}</ds:SignatureValue>`);
    // The issue date, the configured issuing system code, the serial.
    expect(approvalNumber).toMatch(/^[0-9]{8}41000008[0-9a-z]{8}$/);
    expect(signedDocument).toContain(`<IssueID>${approvalNumber}</IssueID>`);
  });

  it('ends FAILED with the gateway\'s code and message when it rejects, and refunds',
    async () => {
      const before = await balances();
      const issuanceKey = await issued(liveKey, liveSupplier, RECIPIENTS.rejected);
      const invoice = await waitForStatus(app, liveKey, issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(invoice).toMatchObject({ status: 'FAILED', ntsTransactionId: null,
        failure: { code: 'NTS_DUPLICATE', message: '이미 전송된 세금계산서입니다.' } });
      expect(requestsFor(issuanceKey)).toHaveLength(1);
      expect(await balances()).toEqual(before);
    });

  it('sends the signer\'s R-value beside the signed document, which the certificate\'s VID proves',
    async () => {
      const issuanceKey = await issued(liveKey, liveSupplier, RECIPIENTS.accepted);
      await waitForStatus(app, liveKey, issuanceKey, ['TRANSMITTED', 'FAILED']);
      const { certificate, signerRandomNumber } = requestsFor(issuanceKey)[0]!.body;
      expect(signerRandomNumber).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const facts = readCertificate(Buffer.from(certificate, 'base64'))!;
      const randomNumber = Buffer.from(signerRandomNumber!, 'base64');
      expect(checkIdentity(facts, randomNumber, liveSupplier.identificationNumber))
        .toBe('match');
      expect(checkIdentity(facts, randomNumber, RECIPIENTS.accepted)).toBe('mismatch');
    });
});

type TransmissionStep = { attemptNumber: number; dueAtMs: number; leased: boolean };

async function transmissionStep(issuanceKey: string): Promise<TransmissionStep | null> {
  const result = await app.platform.database.pool.query(
    `select attempt_number, due_at, leased_until from tax_invoice_steps
      where step = 'TRANSMISSION' and issuance_key = $1`, [issuanceKey]);
  const row = result.rows[0];
  return row === undefined ? null : { attemptNumber: row.attempt_number,
    dueAtMs: row.due_at.getTime(), leased: row.leased_until !== null };
}

describe('a gateway answer outside the contract', () => {
  it.each([
    ['an HTML page', RECIPIENTS.garbage],
    ['a rejection whose message PostgreSQL cannot store', RECIPIENTS.unstorable],
  ])('for %s keeps the document TRANSMITTING and puts attempt 2 off about 30 s',
    async (_name, recipient) => {
      const before = await balances();
      const issuanceKey = await issued(liveKey, liveSupplier, recipient);
      const retry = await pollUntil(() => transmissionStep(issuanceKey),
        (found) => found?.attemptNumber === 2);
      // The retry was put off before this moment and after the gateway answered: it is due 30 s
      // after a time between the two, however long the machine took in between.
      const seenAtMs = Date.now();
      const [sent] = requestsFor(issuanceKey);
      expect(TRANSMISSION_RETRY_DELAYS_SECONDS[0]).toBe(30);
      expect(retry!.dueAtMs).toBeGreaterThanOrEqual(sent!.receivedAtMs + 30_000);
      expect(retry!.dueAtMs).toBeLessThanOrEqual(seenAtMs + 30_000);
      // No worker holds it meanwhile: it waits for its time.
      expect(retry!.leased).toBe(false);
      const response = await app.server.inject(request(liveKey, 'GET',
        `/v1/taxInvoices/${issuanceKey}`));
      expect(response.json()).toMatchObject({ status: 'TRANSMITTING', ntsTransactionId: null,
        failure: null });
      expect(await statusHistory(issuanceKey)).toEqual(['PENDING', 'ISSUED', 'TRANSMITTING']);
      // Still charged: the document is on its way, not ended.
      expect(await balances()).toEqual({ live: before.live - 100, test: before.test });
    });
});

describe('issuing with a test key on the same app', () => {
  it('transmits to the sandbox and charges the test balance; the gateway receives nothing',
    async () => {
      const before = await balances();
      const issuanceKey = await issued(testKey, testSupplier, RECIPIENTS.accepted);
      const invoice = await waitForStatus(app, testKey, issuanceKey, ['TRANSMITTED', 'FAILED']);
      expect(invoice.status).toBe('TRANSMITTED');
      // The sandbox accepts the number etax gave, with the same issuing system code.
      expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000008[0-9a-z]{8}$/);
      expect(requestsFor(issuanceKey)).toEqual([]);
      expect(await balances()).toEqual({ live: before.live, test: before.test - 100 });
    });
});
