// What happens to an accepted tax invoice on the workers: PENDING → ISSUED (signed by the issuer's
// registered certificate) → TRANSMITTING → TRANSMITTED with a 24-digit approval number, or FAILED
// with a cause; each outcome once, with its webhook event (docs/webhooks.md) and, on
// failure, the points refunded. Cancel works only before transmission.
import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findInvoiceByKey } from '../../../src/areas/tax-invoices/store.ts';
import { findXmlDocumentsByKeys } from '../../../src/areas/tax-invoices/xml/store.ts';
import { seoulDate } from '../../../src/domain/business-days.ts';
import { verifyXmlDocument } from '../../../src/domain/xml-signature.ts';
import { SANDBOX_RECIPIENTS } from '../../../src/upstream/tax-invoices/sandbox.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { expectError } from '../../helpers/errors.ts';
import { pollUntil } from '../../helpers/poll.ts';
import {
  getInvoice,
  invoiceBody,
  issue,
  createSupplierAccount,
  createIssuingApp,
  useSupplierAccount,
  registerSupplier,
  request,
  waitForStatus,
  type Supplier,
} from './helpers.ts';

let app: TestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

const createApp = () => createIssuingApp({ PUBLIC_BASE_URL: 'https://etax.example.com' });
useSupplierAccount({ createApp }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });

async function issued(body: unknown = invoiceBody()): Promise<string> {
  const response = await issue(app, key, supplier.supplierKey, body);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

type Event = { id: string; type: string; eventType: string; data: Record<string, unknown> };

async function eventsOf(issuanceKey: string): Promise<Event[]> {
  const response = await app.server.inject(request(key, 'GET', '/v1/webhookEvents?limit=100'));
  return (response.json() as { results: Event[] }).results
    .filter((event) => event.data.issuanceKey === issuanceKey);
}

async function statusHistory(issuanceKey: string): Promise<string[]> {
  const result = await app.platform.database.pool.query(
    'select to_status from tax_invoice_status_changes where issuance_key = $1 order by id',
    [issuanceKey]);
  return result.rows.map((row) => row.to_status as string);
}

describe('a successful issuance', () => {
  it('is signed, transmitted, recorded step by step and announced once', async () => {
    const issuanceKey = await issued();
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice).toMatchObject({ status: 'TRANSMITTED', failure: null });
    expect(invoice.ntsTransactionId).toMatch(/^[0-9]{8}41000000[0-9a-z]{8}$/);
    // Approval numbers start with the issue date in Korea.
    expect(invoice.ntsTransactionId!.slice(0, 8))
      .toBe(seoulDate(new Date(invoice.issuedAt!)).replaceAll('-', ''));
    expect(invoice.issuedAt).not.toBeNull();
    expect(await statusHistory(issuanceKey))
      .toEqual(['PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED']);
    const events = await pollUntil(() => eventsOf(issuanceKey), (found) => found.length > 0);
    expect(events).toEqual([{ id: expect.any(String), type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      eventType: 'TAX_INVOICE_ISSUANCE_SUCCESS', createdAt: expect.any(String),
      data: { issuanceKey,
        taxInvoiceUrl: `https://etax.example.com/v1/taxInvoices/${issuanceKey}/pdf` } }]);
  });

  it('carries the standard RSA-SHA256 signature over its standard XML that the registered ' +
    'certificate verifies', async () => {
    const issuanceKey = await issued();
    await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
    const row = (await findInvoiceByKey(app.platform.database.db, issuanceKey))!;
    const [xml] = await findXmlDocumentsByKeys(app.platform.database.db, [issuanceKey]);
    // The certificate is kept with the XML, not on the document's row.
    expect(row.signingCertificate).toBeNull();
    const certificate = new X509Certificate(Buffer.from(xml!.signingCertificate!, 'base64'));
    expect(certificate.subject).toContain(supplier.identificationNumber);
    const check = verifyXmlDocument(xml!.signedXml);
    expect(check).toEqual({ valid: true, certificate: Buffer.from(xml!.signingCertificate!,
      'base64') });
    expect(xml!.approvalNumber).toBe(row.ntsTransactionId);
    // A changed document no longer verifies.
    expect(verifyXmlDocument(xml!.signedXml.replace('<ChargeTotalAmount>',
      '<ChargeTotalAmount>9')).valid).toBe(false);
  });

  it('keeps the charge: 100 points per document', async () => {
    const before = await balance();
    const issuanceKey = await issued();
    await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
    expect((await balance()).balance).toBe(before.balance - 100);
  });
});

describe('a failed issuance', () => {
  it('ends FAILED with the authority\'s cause, refunds and sends the failure event', async () => {
    const before = await balance();
    const body = invoiceBody();
    const issuanceKey = await issued({ ...body, supplied: { ...body.supplied,
      identificationNumber: SANDBOX_RECIPIENTS.rejected } });
    const invoice = await waitForStatus(app, key, issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(invoice).toMatchObject({ status: 'FAILED', ntsTransactionId: null,
      failure: { code: 'TRANSMISSION_REJECTED', message: expect.any(String) } });
    expect(await balance()).toEqual(before);
    const events = await pollUntil(() => eventsOf(issuanceKey), (found) => found.length > 0);
    expect(events.map((event) => [event.eventType, event.data])).toEqual([[
      'TAX_INVOICE_ISSUANCE_FAILURE',
      { issuanceKey, cause: { code: 'TRANSMISSION_REJECTED', message: expect.any(String) } },
    ]]);
  });

  it('fails with NOT_FOUND_CERTIFICATE when the certificate is removed before signing',
    async () => {
      // An app of its own without workers: the test runs the issuance step itself, after the
      // certificate is gone.
      const paused = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
      try {
        const own = await createSupplierAccount(paused, 'Removed certificate');
        const pausedBalance = () => paused.platform.points.getBalance({
          accountId: own.accountId, environment: 'test' });
        const before = await pausedBalance();
        const response = await issue(paused, own.key, own.supplier.supplierKey);
        expect(response.statusCode, response.body).toBe(200);
        const { issuanceKey } = response.json() as { issuanceKey: string };
        const removed = await paused.server.inject(request(own.key, 'DELETE',
          `/v1/issuers/${own.supplier.issuerId}/certificates`));
        expect(removed.statusCode).toBe(204);
        const issuance = paused.taxInvoices.dueWork
          .find((definition) => definition.name === 'tax-invoices-issuance')!;
        expect(await issuance.runBatch()).toBe(1);
        const invoice = await getInvoice(paused, own.key, issuanceKey);
        expect(invoice).toMatchObject({ status: 'FAILED', failure: {
          code: 'NOT_FOUND_CERTIFICATE', message: expect.any(String) } });
        expect(await pausedBalance()).toEqual(before);
        // The document left the workers' queue with its failure.
        expect(await issuance.runBatch()).toBe(0);
        const steps = await paused.platform.database.pool.query(
          'select count(*)::int as count from tax_invoice_steps where issuance_key = $1',
          [issuanceKey]);
        expect(steps.rows[0].count).toBe(0);
      } finally {
        await paused.close();
      }
    });
});

describe('cancel before transmission', () => {
  let slow: TestApp;
  let slowKey: string;
  let slowAccount: string;
  let slowSupplier: Supplier;

  beforeAll(async () => {
    slow = await createTestApp({ jobs: true,
      env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '3600' } });
    const account = await slow.createAccount();
    slowKey = account.keys.test;
    slowAccount = account.accountId;
    slowSupplier = await registerSupplier(slow, slowKey);
  });
  afterAll(async () => {
    await slow?.close();
  });

  it('cancels an ISSUED invoice, refunds it, and it is never transmitted', async () => {
    const before = await slow.platform.points.getBalance({ accountId: slowAccount,
      environment: 'test' });
    const { issuanceKey } = (await issue(slow, slowKey, slowSupplier.supplierKey))
      .json() as { issuanceKey: string };
    await waitForStatus(slow, slowKey, issuanceKey, ['ISSUED']);
    const response = await slow.server.inject(request(slowKey, 'POST',
      `/v1/taxInvoices/${issuanceKey}/cancel`));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ issuanceKey, status: 'CANCELED' });
    expect(await slow.platform.points.getBalance({ accountId: slowAccount,
      environment: 'test' })).toEqual(before);
    // A second cancel changes nothing.
    expectError(await slow.server.inject(request(slowKey, 'POST',
      `/v1/taxInvoices/${issuanceKey}/cancel`)), 409, 'TAX_INVOICE_NOT_CANCELABLE');
    expect(await slow.platform.points.getBalance({ accountId: slowAccount,
      environment: 'test' })).toEqual(before);
  });

  it.each([
    ['no body at all', {}, undefined],
    ['a zero-length body sent as JSON', { 'content-type': 'application/json' }, ''],
    ['an empty JSON object', { 'content-type': 'application/json' }, '{}'],
  ])('cancels when sent %s', async (_case, headers, payload) => {
    const { issuanceKey } = (await issue(slow, slowKey, slowSupplier.supplierKey))
      .json() as { issuanceKey: string };
    await waitForStatus(slow, slowKey, issuanceKey, ['ISSUED']);
    const response = await slow.server.inject({ ...request(slowKey, 'POST',
      `/v1/taxInvoices/${issuanceKey}/cancel`, { headers }), payload });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ issuanceKey, status: 'CANCELED' });
  });

  it('refuses a body with content with 400 or 415, and cancels nothing', async () => {
    const { issuanceKey } = (await issue(slow, slowKey, slowSupplier.supplierKey))
      .json() as { issuanceKey: string };
    await waitForStatus(slow, slowKey, issuanceKey, ['ISSUED']);
    const before = await slow.platform.points.getBalance({ accountId: slowAccount,
      environment: 'test' });
    const send = (type: string, payload: string) => slow.server.inject({ ...request(slowKey,
      'POST', `/v1/taxInvoices/${issuanceKey}/cancel`, { headers: { 'content-type': type } }),
    payload });
    const refused = expectError(await send('application/json', '{"reason":"changed my mind"}'),
      400, 'INVALID_REQUEST');
    expect(refused.message).toMatch(/no body/);
    expectError(await send('application/json', '[]'), 400, 'INVALID_REQUEST');
    expectError(await send('application/json', 'null'), 400, 'INVALID_REQUEST');
    expectError(await send('application/json', '{'), 400, 'INVALID_REQUEST');
    expectError(await send('text/plain', 'cancel'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expect((await getInvoice(slow, slowKey, issuanceKey)).status).toBe('ISSUED');
    expect(await slow.platform.points.getBalance({ accountId: slowAccount,
      environment: 'test' })).toEqual(before);
  });

  it('refuses to cancel a transmitted invoice with 409 TAX_INVOICE_NOT_CANCELABLE', async () => {
    const issuanceKey = await issued();
    await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
    const before = await balance();
    const body = expectError(await app.server.inject(request(key, 'POST',
      `/v1/taxInvoices/${issuanceKey}/cancel`)), 409, 'TAX_INVOICE_NOT_CANCELABLE');
    expect(body.message).toContain('TRANSMITTED');
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('TRANSMITTED');
    expect(await balance()).toEqual(before);
  });

  it('answers 404 NOT_FOUND for an unknown issuance key', async () => {
    expectError(await app.server.inject(request(key, 'POST',
      '/v1/taxInvoices/txi_unknown/cancel')), 404, 'NOT_FOUND');
  });
});
