
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
