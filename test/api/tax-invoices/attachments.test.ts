// A tax invoice's attachments: upload (multipart), list, download and delete, every status and
// code they answer; the limits of size, count and kind (told by the content, whatever the name
// or the declared type says); hostile file names kept safely and served with a Content-
// Disposition that carries Korean names; isolation between accounts and between test and live
// keys. Then the recipient's mail, through a real SMTP server, carrying them after the PDF, and
// the signed XML, which never changes for them.
import type { AddressInfo } from 'node:net';
import {
  addTaxInvoiceAttachments,
  createEtaxClient,
  deleteTaxInvoiceAttachment,
  downloadTaxInvoiceAttachment,
  EtaxError,
  listTaxInvoiceAttachments,
} from '@etax/sdk';
import { eq } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOICE_MAIL_KIND } from '../../../src/areas/tax-invoices/mail/invoice-mail.ts';
import { sendMail } from '../../../src/platform/mail/send-job.ts';
import { mailOutbox } from '../../../src/platform/mail/tables.ts';
import { createSmtpTransport } from '../../../src/platform/mail/transport.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  DOCX_FILE,
  formOf,
  FORM_BOUNDARY,
  JPEG_FILE,
  PDF_FILE,
  PLAIN_ZIP,
  PNG_FILE,
  XLSX_FILE,
  type FormPart,
} from '../../helpers/attachment-files.ts';
import { expectError } from '../../helpers/errors.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp-sink.ts';
import {
  createSupplierAccount,
  getInvoice,
  invoiceBody,
  issue,
  request,
  type SupplierAccount,
} from './helpers.ts';

type Attachment = { attachmentId: string; issuanceKey: string; fileName: string;
  contentType: string; size: number; sha256: string; createdAt: string };

const MB = 1024 * 1024;
const listOf = (attachments: Attachment[]) => ({ attachments, nextCursor: null,
  hasMore: false });

let app: TestApp;
let account: SupplierAccount;

beforeAll(async () => {
  // Jobs staged but no workers: issued documents stay PENDING, where attachments change.
  app = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false' } });
  account = await createSupplierAccount(app, 'Attachments');
});
afterAll(async () => {
  await app?.close();
});

async function newInvoice(owner: SupplierAccount = account, key = owner.key): Promise<string> {
  const response = await issue(app, key, owner.supplier.supplierKey);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

function upload(key: string, issuanceKey: string, body: Buffer | string,
  contentType = `multipart/form-data; boundary=${FORM_BOUNDARY}`, target = app) {
  return target.server.inject({ method: 'POST',
    url: `/v1/taxInvoices/${issuanceKey}/attachments`,
    headers: { authorization: basicAuth(key), 'content-type': contentType }, payload: body });
}

const uploadParts = (issuanceKey: string, parts: FormPart[], key = account.key) =>
  upload(key, issuanceKey, formOf(parts));

async function uploaded(issuanceKey: string, parts: FormPart[]): Promise<Attachment[]> {
  const response = await uploadParts(issuanceKey, parts);
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { attachments: Attachment[] }).attachments;
}

const list = (issuanceKey: string, key = account.key) =>
  app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}/attachments`));
const download = (issuanceKey: string, id: string, key = account.key) =>
  app.server.inject(request(key, 'GET', `/v1/taxInvoices/${issuanceKey}/attachments/${id}`));
const remove = (issuanceKey: string, id: string, key = account.key) =>
  app.server.inject(request(key, 'DELETE', `/v1/taxInvoices/${issuanceKey}/attachments/${id}`));

describe('uploading, listing, downloading and deleting', () => {
  it('keeps each kind under the type its content has, in the order added', async () => {
    const issuanceKey = await newInvoice();
    const added = await uploaded(issuanceKey, [
      { filename: '거래명세서.pdf', content: PDF_FILE, contentType: 'image/png' },
      { filename: 'photo.JPG', content: JPEG_FILE },
      { filename: 'scan.png', content: PNG_FILE, contentType: 'application/pdf' },
      { filename: '내역.xlsx', content: XLSX_FILE },
      { filename: 'contract.docx', content: DOCX_FILE },
    ]);
    expect(added.map((row) => [row.fileName, row.contentType, row.size])).toEqual([
      ['거래명세서.pdf', 'application/pdf', PDF_FILE.length],
      ['photo.JPG', 'image/jpeg', JPEG_FILE.length],
      ['scan.png', 'image/png', PNG_FILE.length],
      ['내역.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
        XLSX_FILE.length],
      ['contract.docx',
        'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        DOCX_FILE.length],
    ]);
    for (const row of added) {
      expect(row.attachmentId).toMatch(/^tia_[A-Za-z0-9_-]{22}$/);
      expect(row.issuanceKey).toBe(issuanceKey);
      expect(row.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    const listed = await list(issuanceKey);
    expect(listed.statusCode).toBe(200);
    expect(listed.json()).toEqual(listOf(added));

    const pdf = await download(issuanceKey, added[0]!.attachmentId);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.equals(PDF_FILE)).toBe(true);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['x-content-type-options']).toBe('nosniff');
    expect(pdf.headers['content-disposition']).toBe('attachment; filename="_____.pdf"; ' +
      "filename*=UTF-8''%EA%B1%B0%EB%9E%98%EB%AA%85%EC%84%B8%EC%84%9C.pdf");
    const xlsx = await download(issuanceKey, added[3]!.attachmentId);
    expect(xlsx.rawPayload.equals(XLSX_FILE)).toBe(true);
  });

  it('gives a name without an extension its kind\'s, and an empty name a default', async () => {
    const issuanceKey = await newInvoice();
    const added = await uploaded(issuanceKey, [
      { filename: 'statement', content: PDF_FILE },
      { filename: '', content: PNG_FILE },
      { filename: '...', content: JPEG_FILE },
    ]);
    expect(added.map((row) => row.fileName)).toEqual(['statement.pdf', 'attachment.png',
      'attachment.jpg']);
  });

  it('deletes while the document is open: 204, then 404', async () => {
    const issuanceKey = await newInvoice();
    const [first, second] = await uploaded(issuanceKey, [{ filename: 'a.pdf', content: PDF_FILE },
      { filename: 'b.png', content: PNG_FILE }]);
    const deleted = await remove(issuanceKey, first!.attachmentId);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expect((await list(issuanceKey)).json()).toEqual(listOf([second!]));
    expectError(await download(issuanceKey, first!.attachmentId), 404, 'NOT_FOUND');
    expectError(await remove(issuanceKey, first!.attachmentId), 404, 'NOT_FOUND');
  });

  it('lists an invoice without attachments as empty', async () => {
    const issuanceKey = await newInvoice();
    expect((await list(issuanceKey)).json()).toEqual(listOf([]));
  });

  it('locks them once the document is past issuance: 409 for changes, reads still answer',
    async () => {
      const issuanceKey = await newInvoice();
      const [kept] = await uploaded(issuanceKey, [{ filename: 'a.pdf', content: PDF_FILE }]);
      const canceled = await app.server.inject(request(account.key, 'POST',
        `/v1/taxInvoices/${issuanceKey}/cancel`));
      expect(canceled.statusCode).toBe(200);
      const refused = expectError(await uploadParts(issuanceKey, [{ filename: 'b.pdf',
        content: PDF_FILE }]), 409, 'TAX_INVOICE_ATTACHMENTS_LOCKED');
      expect(refused.message).toContain('CANCELED');
      expectError(await remove(issuanceKey, kept!.attachmentId), 409,
        'TAX_INVOICE_ATTACHMENTS_LOCKED');
      expect((await list(issuanceKey)).json()).toEqual(listOf([kept!]));
      expect((await download(issuanceKey, kept!.attachmentId)).statusCode).toBe(200);
    });
});

describe('limits', () => {
  it('takes a file of exactly 5 MiB and refuses one byte more with 413', async () => {
    const issuanceKey = await newInvoice();
    const largest = Buffer.concat([PDF_FILE, Buffer.alloc(5 * MB - PDF_FILE.length, 0x20)]);
    const [added] = await uploaded(issuanceKey, [{ filename: 'big.pdf', content: largest }]);
    expect(added!.size).toBe(5 * MB);
    const over = Buffer.concat([largest, Buffer.from(' ')]);
    expectError(await uploadParts(issuanceKey, [{ filename: 'over.pdf', content: over }]), 413,
      'PAYLOAD_TOO_LARGE');
    expect((await list(issuanceKey)).json().attachments).toHaveLength(1);
  });

  it('refuses a sixth file in one form with 413, and over five in all with 409', async () => {
    const issuanceKey = await newInvoice();
    const six = Array.from({ length: 6 }, (_, index) => ({ filename: `${index}.pdf`,
      content: PDF_FILE }));
    expectError(await uploadParts(issuanceKey, six), 413, 'PAYLOAD_TOO_LARGE');
    expect((await list(issuanceKey)).json().attachments).toHaveLength(0);
    await uploaded(issuanceKey, six.slice(0, 3));
    const refused = expectError(await uploadParts(issuanceKey, six.slice(0, 3)), 409,
      'TAX_INVOICE_ATTACHMENT_LIMIT');
    expect(refused.message).toContain('has 3 attachment(s)');
    await uploaded(issuanceKey, six.slice(0, 2));
    expect((await list(issuanceKey)).json().attachments).toHaveLength(5);
    expectError(await uploadParts(issuanceKey, six.slice(0, 1)), 409,
      'TAX_INVOICE_ATTACHMENT_LIMIT');
  });

  it('refuses files that are not of a kind by content, or named for another kind, with 415',
    async () => {
      const issuanceKey = await newInvoice();
      const cases: FormPart[] = [
        { filename: 'invoice.pdf', content: 'just some text', contentType: 'application/pdf' },
        // A PNG whose name lies: it would be opened as a PDF.
        { filename: 'invoice.pdf', content: PNG_FILE, contentType: 'application/pdf' },
        // A program named as an image.
        { filename: 'photo.png', content: Buffer.from('MZ\x90\x00program'),
          contentType: 'image/png' },
        // A PDF named as a program.
        { filename: 'setup.exe', content: PDF_FILE },
        // A ZIP archive that is no office document, and a workbook named as a document.
        { filename: 'archive.xlsx', content: PLAIN_ZIP },
        { filename: 'sheet.docx', content: XLSX_FILE },
        { filename: 'page.html', content: '<html><script>alert(1)</script></html>',
          contentType: 'text/html' },
      ];
      for (const part of cases) {
        expectError(await uploadParts(issuanceKey, [part]), 415, 'ATTACHMENT_TYPE_NOT_ALLOWED');
      }
      // One bad file refuses the whole form.
      expectError(await uploadParts(issuanceKey, [{ filename: 'a.pdf', content: PDF_FILE },
        { filename: 'b.pdf', content: PNG_FILE }]), 415, 'ATTACHMENT_TYPE_NOT_ALLOWED');
      expect((await list(issuanceKey)).json().attachments).toHaveLength(0);
    });
});

describe('malformed requests', () => {
  let issuanceKey: string;
  beforeAll(async () => {
    issuanceKey = await newInvoice();
  });

  it('answers a body that is not multipart with 415', async () => {
    expectError(await upload(account.key, issuanceKey, '{"file":"x"}', 'application/json'), 415,
      'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers a form it cannot read, or of the wrong shape, with 400', async () => {
    const form = formOf([{ filename: 'a.pdf', content: PDF_FILE }]);
    const cases: Array<[string, Buffer | string, string?]> = [
      ['no boundary', form, 'multipart/form-data'],
      ['cut off', form.subarray(0, form.length - 30)],
      ['no part at all', `--${FORM_BOUNDARY}--\r\n`],
      ['a field instead of a file',
        `--${FORM_BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n\r\nx\r\n` +
        `--${FORM_BOUNDARY}--\r\n`],
      ['a file under another name', formOf([{ name: 'upload', filename: 'a.pdf',
        content: PDF_FILE }])],
      ['an empty file', formOf([{ filename: 'a.pdf', content: '' }])],
      ['a part without Content-Disposition', `--${FORM_BOUNDARY}\r\n` +
        `Content-Type: application/pdf\r\n\r\n${PDF_FILE.toString()}\r\n--${FORM_BOUNDARY}--\r\n`],
      // The parser drops a part whose name holds a line break.
      ['a name with CR LF', formOf([{ disposition: 'form-data; name="file"; ' +
        'filename*=UTF-8\'\'evil%0D%0AContent-Type%3A%20text%2Fhtml.pdf', content: PDF_FILE }])],
      ['garbage', 'this is not a form at all'],
    ];
    for (const [name, body, contentType] of cases) {
      const response = await upload(account.key, issuanceKey, body, contentType);
      expect(response.statusCode, name).toBe(400);
      expect(response.json().code, name).toBe('INVALID_REQUEST');
    }
    expect((await list(issuanceKey)).json().attachments).toHaveLength(0);
  });

  it('answers a malformed issuance key or attachment id with 400', async () => {
    expectError(await upload(account.key, 'bad key!', formOf([{ content: PDF_FILE }])), 400,
      'INVALID_REQUEST');
    expectError(await download(issuanceKey, 'bad id!'), 400, 'INVALID_REQUEST');
    expectError(await remove(issuanceKey, 'bad id!'), 400, 'INVALID_REQUEST');
  });

  it('answers without credentials with 401', async () => {
    const response = await app.server.inject({ method: 'POST',
      url: `/v1/taxInvoices/${issuanceKey}/attachments`, headers: { 'content-type':
        `multipart/form-data; boundary=${FORM_BOUNDARY}` },
      payload: formOf([{ content: PDF_FILE }]) });
    expect(response.statusCode).toBe(401);
    expect((await app.server.inject({ method: 'GET',
      url: `/v1/taxInvoices/${issuanceKey}/attachments` })).statusCode).toBe(401);
  });
});

describe('hostile file names', () => {
  it('keeps the last segment, without controls, direction marks or reserved characters',
    async () => {
      const issuanceKey = await newInvoice();
      const cases: Array<[Omit<FormPart, 'content'>, string]> = [
        [{ filename: '../../etc/passwd.pdf' }, 'passwd.pdf'],
        [{ filename: '..\\\\..\\\\windows\\\\win.ini.pdf' }, 'win.ini.pdf'],
        // Right-to-left override: shown as "invoicefdp.png" reversed; the marks go.
        [{ filename: 'invoice\u202Egnp.pdf' }, 'invoicegnp.pdf'],
        [{ filename: 'a\\"b\\".pdf' }, 'a_b_.pdf'],
        // NUL, tab and escape, percent-encoded so that they reach the server.
        [{ disposition: 'form-data; name="file"; filename*=UTF-8\'\'' +
          'evil%00%09%1B%5B31m.pdf' }, 'evil[31m.pdf'],
        // A quoted name cut by a line break: what follows is another header line of the part.
        [{ filename: 'cut\r\nX-Injected: 1.pdf' }, 'cut.pdf'],
        [{ disposition: 'form-data; name="file"; filename*=UTF-8\'\'%EC%84%B8%EA%B8%88' +
          '%E2%80%AE%E2%80%8B.pdf' }, '세금.pdf'],
        [{ filename: `${'가'.repeat(300)}.pdf` }, `${'가'.repeat(196)}.pdf`],
      ];
      const parts = cases.map(([part]) => ({ ...part, content: PDF_FILE }));
      const added = [...await uploaded(issuanceKey, parts.slice(0, 5)),
        ...await uploaded(await newInvoice(), parts.slice(5))];
      expect(added.map((row) => row.fileName)).toEqual(cases.map(([, kept]) => kept));
      for (const row of added) {
        const response = await download(row.issuanceKey, row.attachmentId);
        const header = response.headers['content-disposition'] as string;
        // One header, one line, ASCII only, the name only in its two parameters.
        expect(header).toMatch(new RegExp('^attachment; filename="[\\x20-\\x21\\x23-\\x5b' +
          '\\x5d-\\x7e]*"; filename\\*=UTF-8\'\'[A-Za-z0-9!#$&+.^_`|~%-]+$'));
        expect(decodeURIComponent(header.split("UTF-8''")[1]!)).toBe(row.fileName);
        expect(response.headers['content-type']).toBe('application/pdf');
      }
    });

  it('refuses a right-to-left override that hides a program\'s extension', async () => {
    const issuanceKey = await newInvoice();
    // "report\u202Efdp.exe" is shown as "reportexe.pdf".
    expectError(await uploadParts(issuanceKey, [{ filename: 'report\u202Efdp.exe',
      content: PDF_FILE }]), 415, 'ATTACHMENT_TYPE_NOT_ALLOWED');
  });
});

describe('isolation', () => {
  it('hides one account\'s attachments from another, and test ones from live keys', async () => {
    const issuanceKey = await newInvoice();
    const [added] = await uploaded(issuanceKey, [{ filename: 'a.pdf', content: PDF_FILE }]);
    const other = await createSupplierAccount(app, 'Other account');
    for (const key of [other.key, account.liveKey]) {
      expectError(await uploadParts(issuanceKey, [{ filename: 'b.pdf', content: PDF_FILE }], key),
        404, 'NOT_FOUND');
      expectError(await list(issuanceKey, key), 404, 'NOT_FOUND');
      expectError(await download(issuanceKey, added!.attachmentId, key), 404, 'NOT_FOUND');
      expectError(await remove(issuanceKey, added!.attachmentId, key), 404, 'NOT_FOUND');
    }
    // Another invoice of the same account does not reach it either.
    const otherInvoice = await newInvoice();
    expectError(await download(otherInvoice, added!.attachmentId), 404, 'NOT_FOUND');
    expectError(await remove(otherInvoice, added!.attachmentId), 404, 'NOT_FOUND');
    expect((await list(issuanceKey)).json()).toEqual(listOf([added!]));
  });

  it('answers an invoice that does not exist with 404', async () => {
    expectError(await uploadParts('txi_none', [{ filename: 'a.pdf', content: PDF_FILE }]), 404,
      'NOT_FOUND');
    expectError(await list('txi_none'), 404, 'NOT_FOUND');
  });
});

describe('the SDK', () => {
  it('adds, lists, downloads and deletes them over HTTP', async () => {
    await app.server.listen({ port: 0, host: '127.0.0.1' });
    const baseUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
    const etax = createEtaxClient({ apiKey: account.key, baseUrl });
    const issuanceKey = await newInvoice();
    const added = await addTaxInvoiceAttachments(etax, issuanceKey, [
      { fileName: '거래명세서.pdf', content: new Uint8Array(PDF_FILE) },
      { fileName: 'photo.jpg', content: new Blob([new Uint8Array(JPEG_FILE)]) }]);
    expect(added.map((row) => row.fileName)).toEqual(['거래명세서.pdf', 'photo.jpg']);
    expect(await listTaxInvoiceAttachments(etax, issuanceKey)).toEqual(added);
    const file = await downloadTaxInvoiceAttachment(etax, issuanceKey, added[1]!.attachmentId);
    expect(file.contentType).toBe('image/jpeg');
    expect(Buffer.from(file.content).equals(JPEG_FILE)).toBe(true);
    await deleteTaxInvoiceAttachment(etax, issuanceKey, added[1]!.attachmentId);
    expect(await listTaxInvoiceAttachments(etax, issuanceKey)).toEqual(added.slice(0, 1));
    const refused = await addTaxInvoiceAttachments(etax, issuanceKey,
      [{ fileName: 'fake.pdf', content: new Uint8Array(PNG_FILE) }]).catch((error) => error);
    expect(refused).toBeInstanceOf(EtaxError);
    expect(refused).toMatchObject({ status: 415, code: 'ATTACHMENT_TYPE_NOT_ALLOWED' });
  });
});

describe('the recipient\'s mail and the signed XML', () => {
  let sink: SmtpSink;
  let paused: TestApp;
  let owner: SupplierAccount;
  const MAIL_FROM = 'etax <no-reply@etax.example.com>';

  beforeAll(async () => {
    sink = await startSmtpSink();
    // Jobs staged but no workers: the test runs the steps itself, between its uploads.
    paused = await createTestApp({ jobs: true, env: { WORKERS_ENABLED: 'false',
      SMTP_URL: sink.url, MAIL_FROM, TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
    owner = await createSupplierAccount(paused, 'Mailed attachments');
  });
  afterAll(async () => {
    await paused?.close();
    await sink?.close();
  });

  const step = (name: string) => paused.taxInvoices.dueWork
    .find((definition) => definition.name === name)!;
  const xmlOf = async (issuanceKey: string) => {
    const response = await paused.server.inject(request(owner.key, 'GET',
      `/v1/taxInvoices/${issuanceKey}/xml`));
    expect(response.statusCode).toBe(200);
    return response.body;
  };

  it('carries them after the PDF; the signed XML stays as signed', async () => {
    const response = await issue(paused, owner.key, owner.supplier.supplierKey, invoiceBody({
      supplied: { ...invoiceBody().supplied, managers: [{ email: 'first@recipient.example' }] },
    }));
    expect(response.statusCode, response.body).toBe(200);
    const { issuanceKey } = response.json() as { issuanceKey: string };
    const first = await upload(owner.key, issuanceKey,
      formOf([{ filename: '거래명세서.pdf', content: PDF_FILE }]), undefined, paused);
    expect(first.statusCode, first.body).toBe(201);

    expect(await step('tax-invoices-issuance').runBatch()).toBe(1);
    expect((await getInvoice(paused, owner.key, issuanceKey)).status).toBe('ISSUED');
    const signed = await xmlOf(issuanceKey);
    // Still open while ISSUED: a file added now changes nothing of the signed document.
    const second = await upload(owner.key, issuanceKey,
      formOf([{ filename: 'photo.jpg', content: JPEG_FILE }]), undefined, paused);
    expect(second.statusCode, second.body).toBe(201);
    expect(await xmlOf(issuanceKey)).toBe(signed);
    expect(signed).not.toContain('거래명세서');
    expect(signed).not.toContain('photo.jpg');
    expect(signed).not.toContain(PDF_FILE.toString('base64'));

    expect(await step('tax-invoices-transmission').runBatch()).toBe(1);
    expect((await getInvoice(paused, owner.key, issuanceKey)).status).toBe('TRANSMITTED');
    expect(await xmlOf(issuanceKey)).toBe(signed);
    expectError(await upload(owner.key, issuanceKey, formOf([{ filename: 'late.pdf',
      content: PDF_FILE }]), undefined, paused), 409, 'TAX_INVOICE_ATTACHMENTS_LOCKED');

    const db = paused.platform.database.db;
    const [mail] = await db.select().from(mailOutbox).where(eq(mailOutbox.reference,
      issuanceKey));
    expect(mail).toBeDefined();
    const transport = createSmtpTransport({ url: sink.url, from: MAIL_FROM });
    try {
      const kinds = new Map([[INVOICE_MAIL_KIND, paused.taxInvoices.invoiceMail.hooks]]);
      expect(await sendMail({ db, transport, now: () => new Date(),
        log: pino({ level: 'silent' }), kinds }, mail!.id)).toBe('sent');
    } finally {
      transport.close();
    }
    const received = sink.received.find((item) => item.raw.includes(issuanceKey));
    expect(received).toBeDefined();
    const parsed = await simpleParser(received!.raw);
    expect(parsed.attachments.map((item) => [item.filename, item.contentType])).toEqual([
      [`${issuanceKey}.pdf`, 'application/pdf'],
      ['거래명세서.pdf', 'application/pdf'],
      ['photo.jpg', 'image/jpeg'],
    ]);
    expect(parsed.attachments[1]!.content.equals(PDF_FILE)).toBe(true);
    expect(parsed.attachments[2]!.content.equals(JPEG_FILE)).toBe(true);
  });

  it('mails a document without attachments with its PDF alone', async () => {
    const response = await issue(paused, owner.key, owner.supplier.supplierKey);
    const { issuanceKey } = response.json() as { issuanceKey: string };
    expect(await step('tax-invoices-issuance').runBatch()).toBe(1);
    expect(await step('tax-invoices-transmission').runBatch()).toBe(1);
    const hooks = paused.taxInvoices.invoiceMail.hooks;
    const db = paused.platform.database.db;
    const [mail] = await db.select().from(mailOutbox).where(eq(mailOutbox.reference,
      issuanceKey));
    const attachments = await hooks.attachments!(mail!);
    expect(attachments.map((item) => item.filename)).toEqual([`${issuanceKey}.pdf`]);
  });
});
