import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import { resealColumn, type ResealCount } from '../../platform/reseal.ts';
import * as store from './store.ts';

// Webhook signing secrets at rest (docs/webhooks.md § Secrets at rest): sealed with the
// encryption key that seals certificate keys (src/platform/encryption-key.ts), the endpoint id as
// context, so a copy of the database alone cannot sign a webhook and a sealed secret copied to
// another endpoint does not open. Rows written before secrets were sealed hold them in plain
// text: they still sign, every process start seals them, and so does `etax reseal`.

type StoredSecrets = Pick<store.EndpointRow, 'id' | 'sealedSecret' | 'plaintextSecret' |
  'sealedPreviousSecret' | 'plaintextPreviousSecret' | 'previousSecretExpiresAt'>;

export function sealSecret(sealing: SealingKey, endpointId: string, secret: string): string {
  return sealing.seal(Buffer.from(secret, 'utf8'), endpointId);
}

function openSecret(sealing: SealingKey, endpointId: string, sealed: string): string {
  return sealing.open(sealed, endpointId).toString('utf8');
}

// The endpoint's current secret, sealed, whichever form it is stored in: a rotation keeps it as
// the previous secret.
export function sealedCurrentSecret(sealing: SealingKey, endpoint: StoredSecrets): string {
  return endpoint.sealedSecret ?? sealSecret(sealing, endpoint.id, endpoint.plaintextSecret!);
}

// The secrets that sign a delivery at `now`: the endpoint's, and the previous one while a
// rotation overlaps.
export function signingSecrets(sealing: SealingKey, endpoint: StoredSecrets, now: Date) {
  const secret = endpoint.sealedSecret === null
    ? endpoint.plaintextSecret!
    : openSecret(sealing, endpoint.id, endpoint.sealedSecret);
  const overlapping = endpoint.previousSecretExpiresAt !== null &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime();
  if (!overlapping) return [secret];
  const previous = endpoint.sealedPreviousSecret === null
    ? endpoint.plaintextPreviousSecret!
    : openSecret(sealing, endpoint.id, endpoint.sealedPreviousSecret);
  return [secret, previous];
}

// Rows read at a time while sealing plain-text secrets.
const PLAINTEXT_BATCH_ROWS = 500;

// Seals every secret still stored in plain text and clears the plain text; returns how many rows
// it sealed. Run by every process start: with nothing left to seal it is one query over a table
// of at most 20 endpoints per account and environment. Processes that race seal each row once,
// since a row is only written while it still holds the plain text read.
export async function sealPlaintextSecrets(db: Db, sealing: SealingKey): Promise<number> {
  let sealed = 0;
  let after: string | null = null;
  for (;;) {
    const rows = await store.listPlaintextSecrets(db, after, PLAINTEXT_BATCH_ROWS);
    for (const row of rows) {
      await store.sealPlaintextSecrets(db, row, {
        ...(row.plaintextSecret === null ? {}
          : { sealedSecret: sealSecret(sealing, row.id, row.plaintextSecret) }),
        ...(row.plaintextPreviousSecret === null ? {}
          : { sealedPreviousSecret: sealSecret(sealing, row.id, row.plaintextPreviousSecret) }),
      });
      sealed += 1;
    }
    if (rows.length < PLAINTEXT_BATCH_ROWS) return sealed;
    after = rows[rows.length - 1]!.id;
  }
}

// After a key rotation: seals every secret again with the current key (`etax reseal`), plain-text
// ones included.
export async function resealSecrets(db: Db, sealing: SealingKey): Promise<ResealCount[]> {
  const plaintext = await sealPlaintextSecrets(db, sealing);
  const sealedColumns = [['sealedSecret', 'sealed_secret'],
    ['sealedPreviousSecret', 'sealed_previous_secret']] as const;
  const columns = sealedColumns.map(([column, name]) => ({
    name: `webhook_endpoints.${name}`,
    nextBatch: (after: string | null, limit: number) =>
      store.listSealedSecrets(db, column, after, limit),
    replace: (id: string, box: string, resealed: string) =>
      store.replaceSealedSecret(db, column, id, box, resealed),
  }));
  const counts = [{ column: 'webhook_endpoints.secret (plain text)', resealed: plaintext,
    unreadable: 0 }];
  for (const column of columns) counts.push(await resealColumn(sealing, column));
  return counts;
}
