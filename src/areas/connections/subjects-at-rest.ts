import { SealedBoxError, type SealingKey } from '../../domain/sealed-box.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { ResealCount } from '../../platform/reseal.ts';
import { openCredentials } from './credentials.ts';
import { bankAccountSubjects, maskAccountNumber } from './service.ts';
import * as store from './store.ts';

// A bank account connection names its account by the bank code and the keyed digest of the
// number (service.ts); the number itself is only in the sealed credentials. Connections made
// before that held the whole number in `subject`: at every start (migrateData) and after a key
// rotation (`etax reseal`, which makes the digests under the current key) each subject is
// written again from the credentials. Connections whose credentials open with no configured key
// are left as they are and counted.

const BATCH_ROWS = 500;
// What a subject of a connection made before digests looks like: bank code, colon, digits.
const PLAIN_SUBJECT = /^(\d{3}):(\d+)$/;

function accountNumberOf(sealing: SealingKey, row: { id: string; subject: string;
  sealedCredentials: string }): { bankCode: string; accountNumber: string } | null {
  try {
    const credentials = openCredentials(sealing, row.id, row.sealedCredentials);
    if (credentials.kind === 'BANK_ACCOUNT') return credentials.bank;
  } catch (error) {
    if (!(error instanceof SealedBoxError)) throw error;
  }
  const plain = PLAIN_SUBJECT.exec(row.subject);
  return plain === null ? null : { bankCode: plain[1]!, accountNumber: plain[2]! };
}

export async function digestBankAccountSubjects(db: Db, sealing: SealingKey):
  Promise<ResealCount> {
  const count: ResealCount = { column: 'connections.subject', resealed: 0, unreadable: 0 };
  let after: string | null = null;
  for (;;) {
    const rows = await store.listBankAccountSubjects(db, after, BATCH_ROWS);
    for (const row of rows) {
      const account = accountNumberOf(sealing, row);
      if (account === null) {
        count.unreadable += 1;
        continue;
      }
      const { subject } = bankAccountSubjects(sealing, account.bankCode, account.accountNumber);
      const maskedAccountNumber = maskAccountNumber(account.accountNumber);
      if (subject === row.subject && maskedAccountNumber === row.maskedAccountNumber) continue;
      await store.replaceBankAccountSubject(db, row.id, row.subject,
        { subject, maskedAccountNumber });
      count.resealed += 1;
    }
    if (rows.length < BATCH_ROWS) return count;
    after = rows[rows.length - 1]!.id;
  }
}
