import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import { resealColumn, type ResealCount } from '../../platform/reseal.ts';
import * as store from './store.ts';
import type { CashReceiptRow, NewCashReceiptRow } from './store.ts';

// A receipt's identity number at rest (docs/cash-receipts.md § Identity numbers at rest): a
// resident registration number, a phone or card number, or a business registration number. The
// authority needs it whole, so it is sealed (AES-256-GCM under the encryption key, the issuance
// key as context, so a box copied to another receipt does not open), and kept masked beside it
// for responses, the PDF and the mail. Nothing searches receipts by it, so no digest is kept.
// Rows written before sealing hold it in `identity_number` until migrateData seals them.

export type SealedIdentityNumber =
  Pick<NewCashReceiptRow, 'sealedIdentityNumber' | 'maskedIdentityNumber'>;

// Masks all but the first three and last four digits.
export function maskIdentityNumber(digits: string): string {
  if (digits.length <= 7) return '*'.repeat(digits.length);
  return `${digits.slice(0, 3)}${'*'.repeat(digits.length - 7)}${digits.slice(-4)}`;
}

export function sealIdentityNumber(sealing: SealingKey, issuanceKey: string, digits: string):
  Required<{ [Column in keyof SealedIdentityNumber]: string }> {
  return { sealedIdentityNumber: sealing.seal(Buffer.from(digits, 'utf8'), issuanceKey),
    maskedIdentityNumber: maskIdentityNumber(digits) };
}

type StoredIdentity = Pick<CashReceiptRow, 'issuanceKey' | 'sealedIdentityNumber'
  | 'plaintextIdentityNumber'>;

// The whole number, for the authority.
export function openIdentityNumber(sealing: SealingKey, row: StoredIdentity): string {
  if (row.sealedIdentityNumber === null) return row.plaintextIdentityNumber!;
  return sealing.open(row.sealedIdentityNumber, row.issuanceKey).toString('utf8');
}

// The masked number, for what is shown.
export function maskedIdentityNumberOf(row: Pick<CashReceiptRow, 'maskedIdentityNumber'
  | 'plaintextIdentityNumber'>): string {
  return row.maskedIdentityNumber ?? maskIdentityNumber(row.plaintextIdentityNumber ?? '');
}

// How many receipts one read of migrateData takes.
const PLAINTEXT_BATCH_ROWS = 500;

// Seals the identity numbers of receipts written before sealing (migrateData, at every start;
// nothing to do once they are all sealed). Returns how many it sealed.
export async function sealPlaintextIdentityNumbers(db: Db, sealing: SealingKey):
  Promise<number> {
  let sealed = 0;
  let after: string | null = null;
  for (;;) {
    const rows = await store.listPlaintextIdentityNumbers(db, after, PLAINTEXT_BATCH_ROWS);
    for (const { issuanceKey, plaintext } of rows) {
      await store.sealPlaintextIdentityNumber(db, issuanceKey, plaintext!,
        sealIdentityNumber(sealing, issuanceKey, plaintext!));
      sealed += 1;
    }
    if (rows.length < PLAINTEXT_BATCH_ROWS) return sealed;
    after = rows[rows.length - 1]!.issuanceKey;
  }
}

// After a key rotation (`etax reseal`): every identity number sealed again with the current key.
export async function resealIdentityNumbers(db: Db, sealing: SealingKey):
  Promise<ResealCount[]> {
  await sealPlaintextIdentityNumbers(db, sealing);
  return [await resealColumn(sealing, {
    name: 'cash_receipts.sealed_identity_number',
    nextBatch: (after, limit) => store.listSealedIdentityNumbers(db, after, limit),
    replace: (key, box, resealed) => store.replaceSealedIdentityNumber(db, key, box, resealed),
  })];
}
