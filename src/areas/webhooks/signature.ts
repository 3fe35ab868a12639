import { createHmac, randomBytes } from 'node:crypto';

// The Etax-Signature header (docs/webhooks.md § Signatures): `t=<unix seconds>,v1=<hex>` where
// the hex is HMAC-SHA256(secret, "<t>.<raw body>"), with one `v1=` per secret that signs (two
// while a rotated secret overlaps the new one). The SDK (sdk/src/webhook-signature.ts) is the
// receiving side.

export const SIGNATURE_HEADER = 'Etax-Signature';
const SECRET_PREFIX = 'whsec_';
// 32 random bytes: a secret as strong as an API key.
const SECRET_RANDOM_BYTES = 32;

export function generateSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(SECRET_RANDOM_BYTES).toString('base64url')}`;
}

function computeSignature(secret: string, timestampSeconds: number, payload: string) {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${payload}`).digest('hex');
}

type SignOptions = { secrets: string[]; timestampSeconds: number; payload: string };

export function signatureHeader({ secrets, timestampSeconds, payload }: SignOptions): string {
  const signatures = secrets.map(
    (secret) => `v1=${computeSignature(secret, timestampSeconds, payload)}`,
  );
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}
