import type { SealingKey } from '../../domain/sealed-box.ts';
import type { BankAccountCredentials } from '../../upstream/bank-accounts/index.ts';
import type { PortalCredentials } from '../../upstream/tax-portal/index.ts';

// Connection credentials at rest (docs/connections.md § Credentials at rest): JSON sealed with
// the encryption key that seals certificate keys and webhook secrets, the connection id as
// context, so a copy of the database alone opens none of them and a box copied to another
// connection does not open. They are opened only to log in to the outside system.

export type StoredCredentials =
  | { kind: 'HOMETAX'; portal: PortalCredentials }
  | { kind: 'BANK_ACCOUNT'; bank: BankAccountCredentials };

export function sealCredentials(sealing: SealingKey, connectionId: string,
  credentials: StoredCredentials): string {
  return sealing.seal(Buffer.from(JSON.stringify(credentials), 'utf8'), connectionId);
}

export function openCredentials(sealing: SealingKey, connectionId: string,
  sealed: string): StoredCredentials {
  return JSON.parse(sealing.open(sealed, connectionId).toString('utf8')) as StoredCredentials;
}
