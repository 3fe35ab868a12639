import { createHmac, timingSafeEqual } from 'node:crypto';

// Verifies the Etax-Signature header of a webhook delivery on the receiving side. It imports
// nothing but node:crypto, so a receiver that does not use the SDK can copy this file as it is.

type VerifyWebhookSignatureOptions = {
  // The raw request body, exactly as received: parsing and re-serializing JSON changes bytes.
  payload: string | Buffer;
  // The Etax-Signature header.
  header: string | undefined;
  // The endpoint's signing secret, or both secrets while a rotation overlaps.
  secrets: string | string[];
  // A signature older or newer than this is refused, so a captured request cannot be replayed
  // later. Five minutes allows for clock drift and slow networks.
  toleranceSeconds?: number;
  now?: Date;
};

const HEX_SHA256_PATTERN = /^[0-9a-f]{64}$/;
const TIMESTAMP_PATTERN = /^[0-9]{1,12}$/;

function parseHeader(header: string): { timestampSeconds: number; signatures: string[] } | null {
  let timestampSeconds: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const separatorIndex = part.indexOf('=');
    const name = part.slice(0, separatorIndex).trim();
    const value = part.slice(separatorIndex + 1).trim();
    if (name === 't' && TIMESTAMP_PATTERN.test(value)) timestampSeconds = Number(value);
    if (name === 'v1' && HEX_SHA256_PATTERN.test(value)) signatures.push(value);
  }
  if (timestampSeconds === null || signatures.length === 0) return null;
  return { timestampSeconds, signatures };
}

// True when the header is fresh and one of its v1 signatures matches one of the secrets.
export function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): boolean {
  const { payload, header, toleranceSeconds = 300, now = new Date() } = options;
  if (!header) return false;
  const parsed = parseHeader(header);
  if (parsed === null) return false;
  const ageSeconds = Math.abs(now.getTime() / 1000 - parsed.timestampSeconds);
  if (ageSeconds > toleranceSeconds) return false;
  const secrets = Array.isArray(options.secrets) ? options.secrets : [options.secrets];
  const signedPayload = Buffer.concat([
    Buffer.from(`${parsed.timestampSeconds}.`),
    Buffer.isBuffer(payload) ? payload : Buffer.from(payload),
  ]);
  let matched = false;
  for (const secret of secrets) {
    const expected = createHmac('sha256', secret).update(signedPayload).digest();
    for (const signature of parsed.signatures) {
      // Constant time, and no early return, so timing does not tell which part matched.
      if (timingSafeEqual(expected, Buffer.from(signature, 'hex'))) matched = true;
    }
  }
  return matched;
}
