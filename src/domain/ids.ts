import { randomBytes } from 'node:crypto';

// Every id we mint carries a prefix from this one table, so an id in a log says what it is.
export const ID_PREFIXES = {
  account: 'acc',
  apiKey: 'key',
  reservation: 'rsv',
  ledgerEntry: 'led',
  idempotencyClaim: 'idm',
  webhookEndpoint: 'whe',
  webhookEvent: 'evt',
  webhookDelivery: 'whd',
  issuer: 'iss',
  supplierKey: 'sup',
  certificateRegistration: 'crg',
  issuanceKey: 'txi',
  requestGroup: 'txg',
  mail: 'mail',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

// 16 random bytes (128 bits) make collisions negligible while keeping ids short.
const ID_RANDOM_BYTES = 16;

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomBytes(ID_RANDOM_BYTES).toString('base64url')}`;
}
