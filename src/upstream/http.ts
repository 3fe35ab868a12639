
// The JSON-over-HTTP call every live adapter makes: POST a JSON body with explicit timeouts and
// read a bounded text answer. Returns null for anything but a 200 within the size bound; the
// adapter turns null (and any thrown network error, timeout or abort) into its own
// "unavailable" result.

type PostJsonOptions = {
  url: string;
  body: unknown;
  signal: AbortSignal;
  timeoutMs: number;
  // A larger answer is not read to the end and counts as no answer.
  responseBytesMax: number;
};

async function readBounded(body: AsyncIterable<Buffer>, bytesMax: number) {
  const chunks: Buffer[] = [];
  let byteCount = 0;
  for await (const chunk of body) {
    byteCount += chunk.length;
    if (byteCount > bytesMax) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function postJson(options: PostJsonOptions): Promise<string | null> {
  // undici (some 20 MB resident) loads with the first live call, not at every start.
  const { request } = await import('undici');
  const response = await request(options.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(options.body),
    signal: options.signal,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    return null;
  }
  const text = await readBounded(response.body, options.responseBytesMax);
  if (text === null) response.body.destroy();
  return text;
}

// An answer's body as a JSON object, or null when it is not one (malformed JSON, an array, a
// bare value): what every adapter checks before reading its fields.
export function parseJsonObject(text: string): Record<string, unknown> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
    ? parsed as Record<string, unknown> : null;
}

const REJECTION_TEXT_LENGTH_MAX = 500;
// A rejection's code and message are stored on the document and sent in the failure event.
// PostgreSQL cannot store NUL or a lone surrogate, so such a rejection made the job throw on every
// retry and left the document in flight for good; other control characters break logs and
// exports. Text holding any of them is outside the contract, so it is `unavailable`.
const UNPRINTABLE = /[\p{Cc}\p{Cs}]/u;

function boundedText(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (UNPRINTABLE.test(trimmed)) return null;
  return trimmed.length > 0 && trimmed.length <= REJECTION_TEXT_LENGTH_MAX ? trimmed : null;
}

export type GatewayRejection = { kind: 'rejected'; code: string; message: string };

// The `{"result":"REJECTED","code":"…","message":"…"}` answer every operator-run gateway gives
// (tax invoices, cash receipts, documents): its code and message, each 1 to 500 printable
// characters, the code matching `codePattern` where the gateway's contract has one; null for
// any other answer.
export function parseRejection(answer: Record<string, unknown>,
  codePattern?: RegExp): GatewayRejection | null {
  const code = boundedText(answer.code);
  const message = boundedText(answer.message);
  if (answer.result !== 'REJECTED' || code === null || message === null) return null;
  if (codePattern !== undefined && !codePattern.test(code)) return null;
  return { kind: 'rejected', code, message };
}
