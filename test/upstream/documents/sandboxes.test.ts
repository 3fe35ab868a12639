// The document upstreams without a server: the sandboxes make the same PDF from the same request
// and different ones from different requests, fail the documented values, keep fact
// certificates pending for the officer's check; the gateway contract accepts only answers of its
// documented shape.
import { extractText, getDocumentProxy } from 'unpdf';
import { describe, expect, it } from 'vitest';
import type {
  CivilDocumentRequest,
  DocumentIssueResult,
} from '../../../src/upstream/civil-documents/index.ts';
import { createSandboxCivilDocuments } from '../../../src/upstream/civil-documents/sandbox.ts';
import type { RegistryCopyRequest } from '../../../src/upstream/court-registry/index.ts';
import { createSandboxCourtRegistry } from '../../../src/upstream/court-registry/sandbox.ts';
import { parseDocumentAnswer } from '../../../src/upstream/document-gateway.ts';

const ACCEPTED_AT = new Date('2026-03-02T01:00:00.000Z');
const signal = () => AbortSignal.timeout(10_000);

const civilRequest = (changes: Partial<CivilDocumentRequest> = {}): CivilDocumentRequest => ({
  issuanceKey: 'doc_one',
  type: 'BUSINESS_REGISTRATION_CERTIFICATE',
  options: { showAddress: true, showResidentNumber: false, language: 'KO', purpose: '대출',
    startYearMonth: null, endYearMonth: null, taxYear: null, incomeCertificateKind: null,
    fiscalYearEndMonth: null },
  business: { businessNumber: '1234567891', name: '주식회사 이택스', representativeName: '홍길동' },
  certificate: { serialNumber: '01', notAfter: '2030-01-01T00:00:00.000Z' },
  acceptedAt: ACCEPTED_AT,
  ...changes,
});

const registryRequest = (changes: Partial<RegistryCopyRequest> = {}): RegistryCopyRequest => ({
  issuanceKey: 'doc_two', copy: 'SUBMISSION', corporationNumber: '1101110062432',
  corporationKind: 'STOCK_COMPANY', scope: 'ALL', entries: 'CURRENT', acceptedAt: ACCEPTED_AT,
  ...changes,
});

const pdfOf = (result: DocumentIssueResult): Buffer => {
  if (result.kind !== 'issued') throw new Error(`expected a document, got ${result.kind}`);
  return result.pdf;
};

describe('the civil-document sandbox', () => {
  const sandbox = createSandboxCivilDocuments({ officerCheckSeconds: 60,
    now: () => new Date(ACCEPTED_AT.getTime() + 1_000) });

  it('makes the same PDF from the same request, another from another', async () => {
    const first = pdfOf(await sandbox.issue(civilRequest(), signal()));
    expect(first.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(Buffer.compare(first, pdfOf(await sandbox.issue(civilRequest(), signal())))).toBe(0);
    const other = pdfOf(await sandbox.issue(civilRequest({ issuanceKey: 'doc_other' }),
      signal()));
    expect(Buffer.compare(first, other)).not.toBe(0);
  });

  it('fails the documented values', async () => {
    expect(await sandbox.issue(civilRequest({ business: { businessNumber: '1208100002',
      name: 'A', representativeName: 'B' } }), signal()))
      .toMatchObject({ kind: 'rejected', code: 'CERTIFICATE_EXPIRED' });
    expect(await sandbox.issue(civilRequest({ type: 'INCOME_AMOUNT_CERTIFICATE',
      options: { ...civilRequest().options, taxYear: 2000 } }), signal()))
      .toMatchObject({ kind: 'rejected', code: 'NO_FILED_RETURN' });
  });

  it('prints the income certificate\'s kind (증명구분)', async () => {
    const issued = await sandbox.issue(civilRequest({ type: 'INCOME_AMOUNT_CERTIFICATE',
      options: { ...civilRequest().options, taxYear: 2024,
        incomeCertificateKind: 'WAGE_EARNER' } }), signal());
    expect(issued.kind).toBe('issued');
    const pdf = (issued as { pdf: Buffer }).pdf;
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(pdf)),
      { mergePages: true });
    expect(text).toContain('근로소득자용');
  });

  it('keeps fact certificates pending until the officer\'s check is over', async () => {
    const request = civilRequest({ type: 'BUSINESS_SUSPENSION_FACT_CERTIFICATE' });
    expect(await sandbox.issue(request, signal())).toEqual({ kind: 'pending',
      retryAt: new Date(ACCEPTED_AT.getTime() + 60_000) });
    const later = createSandboxCivilDocuments({ officerCheckSeconds: 60,
      now: () => new Date(ACCEPTED_AT.getTime() + 61_000) });
    expect(await later.issue(request, signal())).toMatchObject({ kind: 'issued',
      issuedAt: new Date(ACCEPTED_AT.getTime() + 60_000) });
  });
});

describe('the court registry sandbox', () => {
  const registry = createSandboxCourtRegistry();

  it('makes the same copy from the same request; view and submission copies differ', async () => {
    const submission = pdfOf(await registry.issue(registryRequest(), signal()));
    expect(Buffer.compare(submission,
      pdfOf(await registry.issue(registryRequest(), signal())))).toBe(0);
    const view = pdfOf(await registry.issue(registryRequest({ copy: 'VIEW' }), signal()));
    expect(Buffer.compare(submission, view)).not.toBe(0);
  });

  it('does not know a corporation whose serial is 000000', async () => {
    expect(await registry.issue(registryRequest({ corporationNumber: '1101110000002' }),
      signal())).toMatchObject({ kind: 'rejected', code: 'CORPORATION_NOT_FOUND' });
  });
});

describe('the gateway contract', () => {
  const now = new Date('2026-03-02T00:00:00.000Z');
  const pdfBase64 = Buffer.from('%PDF-1.7 test').toString('base64');

  it.each([
    ['an issued document', { result: 'ISSUED', issueNumber: '1234-5678', pdfBase64,
      issuedAt: '2026-03-02T00:00:00Z' }, 'issued'],
    ['a pending one', { result: 'PROCESSING', retryAfterSeconds: 30 }, 'pending'],
    ['a rejection', { result: 'REJECTED', code: 'NO_FILED_RETURN', message: 'none' },
      'rejected'],
  ])('reads %s', (_name, answer, kind) => {
    expect(parseDocumentAnswer(JSON.stringify(answer), now)).toMatchObject({ kind });
  });

  it.each([
    ['not JSON', 'nope'],
    ['an array', '[]'],
    ['a file that is not a PDF', JSON.stringify({ result: 'ISSUED', issueNumber: '1',
      pdfBase64: Buffer.from('hello').toString('base64'), issuedAt: '2026-03-02T00:00:00Z' })],
    ['a bad issue time', JSON.stringify({ result: 'ISSUED', issueNumber: '1', pdfBase64,
      issuedAt: 'later' })],
    ['a retry after zero seconds', JSON.stringify({ result: 'PROCESSING',
      retryAfterSeconds: 0 })],
    ['a rejection code with control characters', JSON.stringify({ result: 'REJECTED',
      code: 'A\u0000', message: 'm' })],
    ['an unknown result', JSON.stringify({ result: 'MAYBE' })],
  ])('refuses %s', (_name, text) => {
    expect(parseDocumentAnswer(text, now)).toBeNull();
  });
});
