// POST /v1/taxInvoices/issueRequest: a reverse issuance request is validated like an issuance,
// charged at acceptance, waits as REQUESTED without a certificate, and queues the approval mail
// to the supplier in the same transaction (KEPT in the outbox here, where no SMTP_URL is set).
// Refused requests leave nothing behind: no document, no charge, no mail.
import { describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/errors.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';
import {
  getInvoice,
  invoiceBody,
  issue,
  useSupplierAccount,
  registerSupplier,
  request,
  waitForStatus,
  type Supplier,
} from './helpers.ts';
import {
  APPROVAL_URL_PATTERN,
  createReverseTestApp,
  linkIn,
  mailAbout,
  mailCount,
  requestReverse,
  type ReverseTestApp,
} from './reverse-helpers.ts';

let app: ReverseTestApp;
let key: string;
let accountId: string;
let supplier: Supplier;

useSupplierAccount({ createApp: createReverseTestApp, name: 'Buyer' }, (made) => {
  ({ app, key, accountId, supplier } = made);
});

const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });

describe('happy', () => {
  it('returns 200 {issuanceKey}, a REQUESTED REVERSE document, and charges 100 points',
    async () => {
      const before = await balance();
      const response = await requestReverse(app, key, supplier.supplierKey);
      expect(response.statusCode).toBe(200);
      const body = response.json() as { issuanceKey: string };
      expect(Object.keys(body)).toEqual(['issuanceKey']);
      expect(body.issuanceKey).toMatch(/^txi_/);
      const invoice = await getInvoice(app, key, body.issuanceKey);
      expect(invoice).toMatchObject({ status: 'REQUESTED', issuanceType: 'REVERSE',
        issuerId: supplier.issuerId, ntsTransactionId: null, issuedAt: null, failure: null });
      expect(before.balance - (await balance()).balance).toBe(100);
      await expectLedgerConsistent(app.platform, accountId, 'test');
      // No issuance step until the supplier approves: acceptance adds steps to plain
      // issuances only.
      const steps = await app.platform.database.pool.query(
        'select count(*)::int as count from tax_invoice_steps where issuance_key = $1',
        [body.issuanceKey]);
      expect(steps.rows[0].count).toBe(0);
    });

  it('queues the approval mail to the issuer\'s contact email, KEPT without SMTP_URL',
    async () => {
      const response = await requestReverse(app, key, supplier.supplierKey);
      const { issuanceKey } = response.json() as { issuanceKey: string };
      const mail = await mailAbout(app, issuanceKey);
      expect(mail).toMatchObject({ status: 'KEPT', recipient: 'supplier@example.co.kr',
        kind: 'TAX_INVOICE_APPROVAL_REQUEST', accountId, environment: 'test', attemptCount: 0,
        sentAt: null });
      expect(mail.subject).toContain('[TEST]');
      expect(mail.subject).toContain('주식회사 받는곳');
      expect(mail.subject).toContain('220,000원');
      expect(linkIn(mail.textBody)).toMatch(APPROVAL_URL_PATTERN);
      expect(mail.htmlBody).toContain(`href="${linkIn(mail.textBody)}"`);
    });

  it('mails the body\'s supplier manager when the issuer has no contact email', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'Other', plan: 'FREE' });
    const created = await app.server.inject(request(other.keys.test, 'POST', '/v1/issuers', {
      body: { identificationNumber: '1234567891', organizationName: '주식회사 이택스',
        representativeName: '홍길동' } }));
    expect(created.statusCode).toBe(201);
    const { supplierKey } = created.json() as { supplierKey: string };
    const response = await requestReverse(app, other.keys.test, supplierKey);
    expect(response.statusCode).toBe(200);
    const mail = await mailAbout(app, (response.json() as { issuanceKey: string }).issuanceKey);
    expect(mail.recipient).toBe('tax@example.co.kr');
  });

  it('needs no registered certificate of the supplier', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'No cert', plan: 'FREE' });
    const bare = await registerSupplier(app, other.keys.test, { certificate: false });
    const response = await requestReverse(app, other.keys.test, bare.supplierKey);
    expect(response.statusCode).toBe(200);
  });

  it('is not issued by the workers: stays REQUESTED while an issuance goes through', async () => {
    const { issuanceKey } = (await requestReverse(app, key, supplier.supplierKey))
      .json() as { issuanceKey: string };
    const issued = (await issue(app, key, supplier.supplierKey)).json() as { issuanceKey: string };
    const done = await waitForStatus(app, key, issued.issuanceKey, ['TRANSMITTED', 'FAILED']);
    expect(done.status).toBe('TRANSMITTED');
    expect((await getInvoice(app, key, issuanceKey)).status).toBe('REQUESTED');
  });

  it('answers the status lookup by reference id with REQUESTED', async () => {
    const referenceId = `reverse-${Date.now()}`;
    const response = await requestReverse(app, key, supplier.supplierKey, invoiceBody(),
      referenceId);
    expect(response.statusCode).toBe(200);
    const status = await app.server.inject(request(key, 'GET',
      `/v1/taxInvoices/issue/status?clientReferenceId=${referenceId}`));
    expect(status.json()).toMatchObject({ status: 'REQUESTED',
      issuanceKey: (response.json() as { issuanceKey: string }).issuanceKey });
  });
});

describe('errors', () => {
  async function expectNothingHappened(run: () => Promise<void>) {
    const before = { balance: await balance(), mails: await mailCount(app) };
    await run();
    expect(await balance()).toEqual(before.balance);
    expect(await mailCount(app)).toBe(before.mails);
  }

  it('returns 404 NOT_FOUND for an unknown Supplier-Key, charging and mailing nothing',
    async () => {
      await expectNothingHappened(async () => {
        expectError(await requestReverse(app, key, 'sup_unknown'), 404, 'NOT_FOUND');
      });
    });

  it('returns 400 INVALID_REQUEST when the supplier is not the Supplier-Key\'s business',
    async () => {
      const body = invoiceBody();
      body.supplier = { ...body.supplier, identificationNumber: '2208162517' };
      await expectNothingHappened(async () => {
        const error = expectError(await requestReverse(app, key, supplier.supplierKey, body),
          400, 'INVALID_REQUEST');
        expect(error.message).toMatch(/supplier/);
      });
    });

  it('returns 400 INVALID_REQUEST for a write date past its issue deadline', async () => {
    const body = invoiceBody({ date: '2026-01-05', items: [{ date: '2026-01-05', name: '품목',
      supplyCost: 1_000, tax: 100 }] });
    await expectNothingHappened(async () => {
      const error = expectError(await requestReverse(app, key, supplier.supplierKey, body), 400,
        'INVALID_REQUEST');
      expect(error.message).toMatch(/deadline/);
    });
  });

  it('returns 400 INVALID_REQUEST without a Supplier-Key header', async () => {
    const response = await app.server.inject(request(key, 'POST',
      '/v1/taxInvoices/issueRequest', { body: invoiceBody() }));
    expectError(response, 400, 'INVALID_REQUEST');
  });

  it('returns 400 INVALID_REQUEST for a reference id this key already used, once', async () => {
    const referenceId = `reverse-dup-${Date.now()}`;
    expect((await requestReverse(app, key, supplier.supplierKey, invoiceBody(), referenceId))
      .statusCode).toBe(200);
    await expectNothingHappened(async () => {
      expectError(await requestReverse(app, key, supplier.supplierKey, invoiceBody(),
        referenceId), 400, 'INVALID_REQUEST');
    });
  });

  it('returns 409 ISSUER_DEACTIVATED for a deactivated supplier', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'Gone', plan: 'FREE' });
    const gone = await registerSupplier(app, other.keys.test, { certificate: false });
    const deactivated = await app.server.inject(request(other.keys.test, 'DELETE',
      `/v1/issuers/${gone.issuerId}`));
    expect(deactivated.statusCode).toBeLessThan(300);
    expectError(await requestReverse(app, other.keys.test, gone.supplierKey), 409,
      'ISSUER_DEACTIVATED');
  });
});

describe('security', () => {
  it('returns 404 NOT_FOUND for a Supplier-Key of another account', async () => {
    const other = await app.platform.accounts.createAccount({ name: 'Other', plan: 'FREE' });
    expectError(await requestReverse(app, other.keys.test, supplier.supplierKey), 404,
      'NOT_FOUND');
  });

  it('returns 404 NOT_FOUND for a test Supplier-Key used with a live key', async () => {
    const account = await app.platform.accounts.createAccount({ name: 'Live', plan: 'FREE' });
    const testSupplier = await registerSupplier(app, account.keys.test, { certificate: false });
    expectError(await requestReverse(app, account.keys.live, testSupplier.supplierKey), 404,
      'NOT_FOUND');
  });
});

