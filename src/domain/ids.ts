import assert from 'node:assert/strict';
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
  taxInvoiceAttachment: 'tia',
  requestGroup: 'txg',
  mail: 'mail',
  connection: 'con',
  revenueExpenseCollection: 'rec',
  bankAccount: 'bac',
  bankTransaction: 'btx',
  bankAccountSync: 'bsy',
  cashReceipt: 'csr',
  documentIssuanceKey: 'doc',
  dashboardUser: 'usr',
  dashboardSession: 'ses',
  auditEvent: 'aud',
  counterparty: 'cpt',
  counterpartyImport: 'cpi',
  bulk: 'blk',
  draft: 'drf',
} as const;

type IdKind = keyof typeof ID_PREFIXES;

// 16 random bytes (128 bits) make collisions negligible while keeping ids short.
const ID_RANDOM_BYTES = 16;

// Ids are drawn from a pool of random bytes filled 4 KiB at a time: a busy request mints several
// ids (reservation, document, claim, ledger entry), and one randomBytes call per id costs more
// than the rest of minting it. Every byte of the pool is used once.
const POOL_BYTES = 4_096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomChunk(byteCount: number): Buffer {
  if (poolOffset + byteCount > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  const chunk = pool.subarray(poolOffset, poolOffset + byteCount);
  poolOffset += byteCount;
  return chunk;
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${randomChunk(ID_RANDOM_BYTES).toString('base64url')}`;
}

// An id made from what it stands for instead of drawn at random, for a write that must happen at
// most once: whoever makes it again (a retried job, a racing request) gets the same id, which the
// table's unique key then refuses. `deterministicId('ledgerEntry', 'refund', issuanceKey)` is
// `led_refund_<issuanceKey>`, the refund of one tax invoice.
export function deterministicId(kind: IdKind, ...parts: string[]): string {
  assert(parts.length > 0, 'a deterministic id is made of at least one part');
  assert(parts.every((part) => part.length > 0), 'every part of a deterministic id says something');
  return `${ID_PREFIXES[kind]}_${parts.join('_')}`;
}
