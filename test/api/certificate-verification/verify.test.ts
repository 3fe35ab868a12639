// POST /v1/businessRegistrationCertificates:verify (docs/certificate-verification.md). Method: one
// app whose accounts start with no test points, so each test grants exactly what it needs and
// ends with the ledger audit; its live tax authority is a fake that counts its calls. The
// certificates are made by the fixture generator (bench/certificates/fixtures.ts) from the
// sandbox certificates: text PDFs, a clean PNG scan and a degraded JPEG photo. OCR costs seconds
// per image, so few images are read here; the accuracy benchmark reads fifty.
import { deflateSync } from 'node:zlib';
import { crc32 } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  certificateImage,
  certificatePdf,
  degradeImage,
  type CertificateFacts as Fixture,
} from '../../../bench/certificates/fixtures.ts';
import type {
  CertificateCheckResult,
  CertificateFacts,
  CertificateValidator,
} from '../../../src/upstream/tax-authority/index.ts';
import {
  SANDBOX_CERTIFICATE_TIMEOUT_NUMBER,
  SANDBOX_CERTIFICATES,
  SANDBOX_SOLE_PROPRIETOR_REPRESENTATIVE,
} from '../../../src/upstream/tax-authority/sandbox.ts';
import { SANDBOX_BUSINESS_NUMBERS } from '../../../src/upstream/business-profiles/sandbox.ts';
import { basicAuth, createTestApp, type TestApp } from '../../helpers/app.ts';
import { accountHelpers } from '../../helpers/accounts.ts';
import { expectError } from '../../helpers/errors.ts';
import { expectLedgerConsistent } from '../../helpers/ledger-audit.ts';

const URL = '/v1/businessRegistrationCertificates:verify';
const PRICE_POINTS = 100;

const corporation = SANDBOX_CERTIFICATES[SANDBOX_BUSINESS_NUMBERS.corporation]!;
const soleProprietor = SANDBOX_CERTIFICATES[SANDBOX_BUSINESS_NUMBERS.soleProprietor]!;

const CORPORATION: Fixture = {
  kind: 'corporate',
  businessRegistrationNumber: corporation.businessRegistrationNumber,
  organizationName: corporation.organizationName,
  representativeName: corporation.representativeName,
  openedOn: corporation.openedOn,
  corporateRegistrationNumber: corporation.corporateRegistrationNumber,
  address: corporation.address,
  businessType: corporation.businessType,
  businessItem: corporation.businessItem,
  issuedOn: '2025-01-15',
  taxOffice: '강남세무서',
};
const SOLE_PROPRIETOR: Fixture = {
  ...CORPORATION,
  kind: 'individual',
  businessRegistrationNumber: soleProprietor.businessRegistrationNumber,
  organizationName: soleProprietor.organizationName,
  representativeName: SANDBOX_SOLE_PROPRIETOR_REPRESENTATIVE,
  openedOn: soleProprietor.openedOn,
  corporateRegistrationNumber: null,
  address: soleProprietor.address,
  businessType: soleProprietor.businessType,
  businessItem: soleProprietor.businessItem,
  taxOffice: '해운대세무서',
};

const EXPECTED_CORPORATION = {
  kind: 'corporate',
  businessRegistrationNumber: CORPORATION.businessRegistrationNumber,
  organizationName: CORPORATION.organizationName,
  representativeName: CORPORATION.representativeName,
  openedOn: CORPORATION.openedOn,
  corporateRegistrationNumber: CORPORATION.corporateRegistrationNumber,
  address: CORPORATION.address,
  businessType: CORPORATION.businessType,
  businessItem: CORPORATION.businessItem,
  issuedOn: CORPORATION.issuedOn,
};

// The fake live authority: matches when the representative is 홍길동, or is unavailable.
const liveCalls: CertificateFacts[] = [];
let liveDown = false;
const fakeLive: CertificateValidator = {
  async validateCertificate(facts): Promise<CertificateCheckResult> {
    liveCalls.push(facts);
    if (liveDown) return { kind: 'unavailable' };
    return facts.representativeName === '홍길동'
      ? { kind: 'answered', matches: true,
        status: { status: 'SUSPENDED', closedOn: null, taxType: 'GENERAL' } }
      : { kind: 'answered', matches: false, status: null };
  },
};

let app: TestApp;
let pdf: Buffer;

beforeAll(async () => {
  app = await createTestApp({
    env: { TEST_SIGNUP_POINTS: '0', TAX_AUTHORITY_TIMEOUT_MS: '300',
      CERTIFICATE_OCR_WORKERS: '1', CERTIFICATE_OCR_QUEUE_MAX: '1' },
    liveCertificateValidator: fakeLive,
  });
  pdf = await certificatePdf(CORPORATION);
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  liveCalls.length = 0;
  liveDown = false;
});

const { fundedAccount, grantLive, expectBalance } = accountHelpers(() => app);

type Part = { name: string; data: Buffer | string; filename?: string; type?: string };

function multipart(parts: Part[]): { payload: Buffer; contentType: string } {
  const boundary = '----etaxCertificateBoundary7d1';
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = part.filename === undefined
      ? `form-data; name="${part.name}"`
      : `form-data; name="${part.name}"; filename="${part.filename}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n` +
      `Content-Type: ${part.type ?? 'application/octet-stream'}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(part.data) ? part.data : Buffer.from(part.data));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks),
    contentType: `multipart/form-data; boundary=${boundary}` };
}

function verify(key: string, file: Buffer, type = 'application/pdf'):
Promise<LightMyRequestResponse> {
  const { payload, contentType } = multipart([{ name: 'file', data: file, filename: 'c', type }]);
  return app.server.inject({ method: 'POST', url: URL, payload,
    headers: { authorization: basicAuth(key), 'content-type': contentType } });
}

type Answer = {
  extracted: Record<string, string | null>;
  fields: Record<string, { value: string; confidence: number }>;
  source: string | null;
  verification: { result: string; checkedAt: string | null; status: unknown };
};

async function expectNothingCharged(account: Awaited<ReturnType<typeof fundedAccount>>,
  points: number) {
  await expectBalance(account, points);
  await expectLedgerConsistent(app.platform, account.accountId, 'test');
}

describe('text PDF', () => {
  it('reads every field of a Hometax-style PDF, MATCHED by the sandbox, charges 100', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const response = await verify(account.keys.test, pdf);
    expect(response.statusCode).toBe(200);
    const answer = response.json<Answer>();
    expect(answer.extracted).toEqual(EXPECTED_CORPORATION);
    expect(answer.source).toBe('PDF_TEXT');
    expect(Object.values(answer.fields).every((field) => field.confidence === 1)).toBe(true);
    expect(answer.verification).toEqual({
      result: 'MATCHED',
      checkedAt: expect.stringMatching(/Z$/u),
      status: { status: 'ACTIVE', closedOn: null, taxType: 'GENERAL' },
    });
    await expectBalance(account, 0);
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
  });

  it('reads a browser-printed PDF, whose text layer holds glyph numbers, from its drawn page',
    async () => {
      const account = await fundedAccount(PRICE_POINTS);
      // The fonts' maps from glyphs to characters renamed in place: the text layer comes back as
      // U+0001, U+0002, … as in a page a browser printed with a web font.
      const printed = Buffer.from(pdf.toString('latin1').replaceAll('/ToUnicode', '/ToUnicodX'),
        'latin1');
      const response = await verify(account.keys.test, printed);
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json<Answer>();
      expect(answer.source).toBe('OCR');
      expect(answer.extracted).toMatchObject({
        businessRegistrationNumber: EXPECTED_CORPORATION.businessRegistrationNumber,
        representativeName: EXPECTED_CORPORATION.representativeName,
        openedOn: EXPECTED_CORPORATION.openedOn });
      const texts = Object.values(answer.extracted as Record<string, unknown>).join('');
      expect([...texts].some((character) => character.charCodeAt(0) < 0x20)).toBe(false);
      expect(answer.verification.result).toBe('MATCHED');
      await expectBalance(account, 0);
    }, 120_000);

  it('answers NOT_MATCHED for a forged representative and charges 100', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const forged = await certificatePdf({ ...CORPORATION, representativeName: '임꺽정' });
    const answer = (await verify(account.keys.test, forged)).json<Answer>();
    expect(answer.verification).toEqual({ result: 'NOT_MATCHED',
      checkedAt: expect.any(String), status: null });
    await expectBalance(account, 0);
  });

  it('answers UNAVAILABLE when the tax authority times out, and charges nothing', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const timingOut = await certificatePdf({ ...CORPORATION,
      businessRegistrationNumber: SANDBOX_CERTIFICATE_TIMEOUT_NUMBER });
    const answer = (await verify(account.keys.test, timingOut)).json<Answer>();
    expect(answer.verification.result).toBe('UNAVAILABLE');
    expect(answer.extracted.businessRegistrationNumber).toBe(SANDBOX_CERTIFICATE_TIMEOUT_NUMBER);
    await expectNothingCharged(account, PRICE_POINTS);
  });

  it('answers 402 before reading anything when the balance is short', async () => {
    const account = await fundedAccount(PRICE_POINTS - 1);
    expectError(await verify(account.keys.test, pdf), 402, 'PAYMENT_REQUIRED');
    await expectNothingCharged(account, PRICE_POINTS - 1);
  });
});

describe('live keys', () => {
  it('sends every field read to the tax authority and returns the current status', async () => {
    const account = await fundedAccount(0);
    await grantLive(account, PRICE_POINTS);
    const answer = (await verify(account.keys.live, pdf)).json<Answer>();
    expect(answer.verification.result).toBe('MATCHED');
    expect(answer.verification.status).toEqual({ status: 'SUSPENDED', closedOn: null,
      taxType: 'GENERAL' });
    expect(liveCalls).toEqual([{
      businessRegistrationNumber: CORPORATION.businessRegistrationNumber,
      openedOn: CORPORATION.openedOn,
      representativeName: CORPORATION.representativeName,
      organizationName: CORPORATION.organizationName,
      corporateRegistrationNumber: CORPORATION.corporateRegistrationNumber,
      businessType: CORPORATION.businessType,
      businessItem: CORPORATION.businessItem,
      address: CORPORATION.address,
    }]);
    await expectBalance(account, 0, 'live');
    await expectLedgerConsistent(app.platform, account.accountId, 'live');
  });

  it('charges NOT_MATCHED and not UNAVAILABLE', async () => {
    const account = await fundedAccount(0);
    await grantLive(account, PRICE_POINTS);
    liveDown = true;
    const down = (await verify(account.keys.live, pdf)).json<Answer>();
    expect(down.verification).toEqual({ result: 'UNAVAILABLE', checkedAt: expect.any(String),
      status: null });
    await expectBalance(account, PRICE_POINTS, 'live');
    liveDown = false;
    const forged = await certificatePdf({ ...CORPORATION, representativeName: '임꺽정' });
    const answer = (await verify(account.keys.live, forged)).json<Answer>();
    expect(answer.verification.result).toBe('NOT_MATCHED');
    await expectBalance(account, 0, 'live');
    await expectLedgerConsistent(app.platform, account.accountId, 'live');
  });

  it('answers UNREADABLE for a document that is not a certificate: no call, no charge',
    async () => {
      const account = await fundedAccount(0);
      await grantLive(account, PRICE_POINTS);
      const invoice = await certificatePdfOfLines(['전자세금계산서', '공급자 등록번호 124-81-00998',
        '합계금액 110,000 원']);
      const response = await verify(account.keys.live, invoice);
      expect(response.statusCode).toBe(200);
      const answer = response.json<Answer>();
      expect(answer.verification).toEqual({ result: 'UNREADABLE', checkedAt: null, status: null });
      expect(liveCalls).toEqual([]);
      await expectBalance(account, PRICE_POINTS, 'live');
      await expectLedgerConsistent(app.platform, account.accountId, 'live');
    });
});

// A PDF of free lines, for documents that are not certificates.
async function certificatePdfOfLines(lines: string[]): Promise<Buffer> {
  const { default: PDFDocument } = await import('pdfkit');
  const { createRequire } = await import('node:module');
  const font = createRequire(import.meta.url).resolve('@kfonts/nanum-gothic/src/NanumGothic.ttf');
  const doc = new PDFDocument({ size: 'A4' });
  doc.font(font);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) =>
    doc.on('end', () => resolve(Buffer.concat(chunks))));
  for (const line of lines) doc.text(line);
  doc.end();
  return done;
}

describe('images (OCR)', () => {
  it('reads a clean PNG scan of a sole proprietor certificate: MATCHED', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const png = await certificateImage(SOLE_PROPRIETOR);
    const response = await verify(account.keys.test, png, 'image/png');
    expect(response.statusCode).toBe(200);
    const answer = response.json<Answer>();
    expect(answer.source).toBe('OCR');
    expect(answer.extracted).toMatchObject({
      kind: 'individual',
      businessRegistrationNumber: SOLE_PROPRIETOR.businessRegistrationNumber,
      representativeName: SOLE_PROPRIETOR.representativeName,
      openedOn: SOLE_PROPRIETOR.openedOn,
      organizationName: SOLE_PROPRIETOR.organizationName,
    });
    expect(answer.fields.businessRegistrationNumber!.confidence).toBeGreaterThan(0.5);
    expect(answer.verification.result).toBe('MATCHED');
    await expectBalance(account, 0);
  });

  it('reads a degraded photo (smaller, rotated 1.5°, noisy, JPEG 60)', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const photo = await degradeImage(await certificateImage(CORPORATION),
      { scale: 0.7, rotation: 1.5, noise: 10, jpegQuality: 60 });
    const answer = (await verify(account.keys.test, photo, 'image/jpeg')).json<Answer>();
    // Numbers pass their checksums and dates their calendar; a name may be misread by a
    // syllable, which the tax authority then does not match (and that is charged).
    // A number whose checksum fails is not read at all, never read wrong.
    expect(answer.extracted).toMatchObject({
      businessRegistrationNumber: CORPORATION.businessRegistrationNumber,
      openedOn: CORPORATION.openedOn,
      kind: 'corporate',
    });
    expect([CORPORATION.corporateRegistrationNumber, null])
      .toContain(answer.extracted.corporateRegistrationNumber);
    expect(['MATCHED', 'NOT_MATCHED']).toContain(answer.verification.result);
    await expectBalance(account, 0);
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
  });

  it('refuses a burst beyond the pool and its queue with 503 and Retry-After', async () => {
    const account = await fundedAccount(PRICE_POINTS * 8);
    const photo = await degradeImage(await certificateImage(CORPORATION),
      { scale: 0.7, rotation: 0, noise: 4, jpegQuality: 80 });
    const rssBefore = process.memoryUsage().rss;
    const responses = await Promise.all(Array.from({ length: 8 },
      () => verify(account.keys.test, photo, 'image/jpeg')));
    const statuses = responses.map((response) => response.statusCode).sort();
    // One worker and one queued request: two are read, the rest refused at once.
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);
    const refused = responses.filter((response) => response.statusCode === 503);
    expect(refused).toHaveLength(6);
    for (const response of refused) {
      expectError(response, 503, 'SERVICE_UNAVAILABLE');
      expect(response.headers['retry-after']).toBe('2');
    }
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(1024 * 1024 * 1024);
    // The refused requests charged nothing; the two read were charged by their result.
    const charged = responses.filter((response) => response.statusCode === 200
      && ['MATCHED', 'NOT_MATCHED'].includes(response.json<Answer>().verification.result)).length;
    await expectBalance(account, PRICE_POINTS * (8 - charged));
    await expectLedgerConsistent(app.platform, account.accountId, 'test');
  });
});

// A PNG whose header claims `width` × `height` pixels, with no pixel data behind it.
function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const type = Buffer.from('IHDR');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, header])) >>> 0);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(13);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    length, type, header, crc]);
}

// A valid PDF whose one content stream inflates to 64 MiB of zeros.
function zipBombPdf(): Buffer {
  const stream = deflateSync(Buffer.alloc(64 * 1024 * 1024), { level: 9 });
  const parts = [
    Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >> endobj\n' +
      `4 0 obj << /Length ${stream.length} /Filter /FlateDecode >>\nstream\n`),
    stream,
    Buffer.from('\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n'),
  ];
  return Buffer.concat(parts);
}

describe('hostile files', () => {
  it('answers 4xx for each, charges nothing and keeps serving', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const key = account.keys.test;
    const jpeg = await degradeImage(await certificateImage(CORPORATION, 72),
      { scale: 1, rotation: 0, noise: 1, jpegQuality: 70 });
    expectError(await verify(key, zipBombPdf()), 400, 'INVALID_FILE');
    expectError(await verify(key, pngClaiming(60_000, 60_000), 'image/png'), 400, 'INVALID_FILE');
    expectError(await verify(key, jpeg.subarray(0, Math.floor(jpeg.length / 2)), 'image/jpeg'),
      400, 'INVALID_FILE');
    expectError(await verify(key, pdf.subarray(0, Math.floor(pdf.length / 2))), 400,
      'INVALID_FILE');
    expectError(await verify(key, Buffer.from('%PDF-1.7\n garbage %%EOF')), 400, 'INVALID_FILE');
    expectError(await verify(key, Buffer.from('PK\u0003\u0004 a zip, not a certificate'),
      'application/pdf'), 415, 'UNSUPPORTED_FILE_TYPE');
    expectError(await verify(key, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      'image/svg+xml'), 415, 'UNSUPPORTED_FILE_TYPE');
    await expectNothingCharged(account, PRICE_POINTS);
    // Still serving.
    expect((await verify(key, pdf)).statusCode).toBe(200);
  });

  it('answers 413 for a file over 10 MiB', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const big = Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024)]);
    expectError(await verify(account.keys.test, big), 413, 'PAYLOAD_TOO_LARGE');
    await expectNothingCharged(account, PRICE_POINTS);
  });

  it('answers 400 for a form without the file part, with another part, or cut off', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const send = (parts: Part[], cut = false) => {
      const { payload, contentType } = multipart(parts);
      return app.server.inject({ method: 'POST', url: URL,
        payload: cut ? payload.subarray(0, payload.length - 30) : payload,
        headers: { authorization: basicAuth(account.keys.test), 'content-type': contentType } });
    };
    expectError(await send([]), 400, 'INVALID_REQUEST');
    expectError(await send([{ name: 'document', data: pdf, filename: 'c.pdf' }]), 400,
      'INVALID_REQUEST');
    expectError(await send([{ name: 'file', data: pdf, filename: 'c.pdf' },
      { name: 'file', data: pdf, filename: 'd.pdf' }]), 400, 'INVALID_REQUEST');
    expectError(await send([{ name: 'file', data: pdf, filename: 'c.pdf' }], true), 400,
      'INVALID_REQUEST');
    await expectNothingCharged(account, PRICE_POINTS);
  });

  it('answers 415 for a JSON body', async () => {
    const account = await fundedAccount(PRICE_POINTS);
    const response = await app.server.inject({ method: 'POST', url: URL,
      payload: JSON.stringify({ file: 'x' }),
      headers: { authorization: basicAuth(account.keys.test),
        'content-type': 'application/json' } });
    expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
