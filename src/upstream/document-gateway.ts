import { parseJsonObject, parseRejection, postJson } from './http.ts';
import { UPSTREAM_UNAVAILABLE, type DocumentIssueResult } from './civil-documents/index.ts';

// The JSON contract both document gateways speak (docs/documents.md § Live gateways):
//   POST {gateway}/<path>  the request as JSON
//   200 {"result":"ISSUED","issueNumber":"…","pdfBase64":"…","issuedAt":"<ISO time>"}
//     | {"result":"PROCESSING","retryAfterSeconds":<1–86400>}
//     | {"result":"REJECTED","code":"…","message":"…"}
// Anything else (another status or body, a network error, a timeout) is `unavailable`.

const RESPONSE_BYTES_MAX = 20 * 1024 * 1024;
const CODE_PATTERN = /^[A-Z][A-Z0-9_]{0,63}$/;
const ISSUE_NUMBER_PATTERN = /^[0-9A-Za-z-]{1,64}$/;

export function parseDocumentAnswer(text: string, now: Date): DocumentIssueResult | null {
  const answer = parseJsonObject(text);
  if (answer === null) return null;
  if (answer.result === 'ISSUED' && typeof answer.issueNumber === 'string' &&
    ISSUE_NUMBER_PATTERN.test(answer.issueNumber) && typeof answer.pdfBase64 === 'string' &&
    typeof answer.issuedAt === 'string') {
    const pdf = Buffer.from(answer.pdfBase64, 'base64');
    const issuedAt = new Date(answer.issuedAt);
    if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-' || Number.isNaN(issuedAt.getTime())) {
      return null;
    }
    return { kind: 'issued', issueNumber: answer.issueNumber, pdf, issuedAt };
  }
  if (answer.result === 'PROCESSING' && Number.isSafeInteger(answer.retryAfterSeconds) &&
    (answer.retryAfterSeconds as number) >= 1 && (answer.retryAfterSeconds as number) <= 86_400) {
    return { kind: 'pending',
      retryAt: new Date(now.getTime() + (answer.retryAfterSeconds as number) * 1_000) };
  }
  return parseRejection(answer, CODE_PATTERN);
}

export async function callDocumentGateway(options: {
  url: string;
  body: unknown;
  signal: AbortSignal;
  timeoutMs: number;
  now: () => Date;
}): Promise<DocumentIssueResult> {
  try {
    const text = await postJson({ url: options.url, body: options.body, signal: options.signal,
      timeoutMs: options.timeoutMs, responseBytesMax: RESPONSE_BYTES_MAX });
    return (text === null ? null : parseDocumentAnswer(text, options.now())) ??
      UPSTREAM_UNAVAILABLE;
  } catch {
    return UPSTREAM_UNAVAILABLE;
  }
}
