import { Type } from '@fastify/type-provider-typebox';
import { HasMore, NextCursor, pageQueryFields } from '../../platform/paging.ts';
import { TRANSACTIONS_LIMIT_MAX } from './service.ts';

// `state` was this area's name for `status` (docs/api-conventions.md).
const STATE_DEPRECATED = 'Deprecated: the same value as `status`, kept for existing clients.';

// The request and response schemas of the bank account routes (docs/bank-transactions.md).

const DateString = (description: string) => Type.String({ format: 'date', description });
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(
  schema: T, description: string) => Type.Union([schema, Type.Null()], { description });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64,
  pattern: '^[A-Za-z0-9_-]+$', description });

const ACCOUNT_EXAMPLE = {
  bankAccountId: 'bac_Qm9yZWFsLWFjY291bnQtaWQ', connectionId: 'con_3sUe0nB2m9K1aVtQx7YpLw',
  bankCode: '004', bankName: 'KB국민은행', accountNumber: '********5678',
  holderName: '주식회사 이택스', currency: 'KRW', state: 'CONNECTED', status: 'CONNECTED',
  failure: null,
  lastSyncedAt: '2026-11-20T01:05:00.000Z', balance: 12_345_678,
};

const TRANSACTION_EXAMPLE = {
  transactionId: 'btx_8fJk2LmQ0pRs4TuVw6XyZa', bookedDate: '2026-11-20',
  bookedAt: '2026-11-20T10:15:00+09:00', direction: 'DEPOSIT', amount: 110_000,
  balanceAfter: 12_345_678, counterpartyName: '주식회사 받는자', memo: '타행이체',
  branch: '강남역지점', changedAt: '2026-11-20T01:05:00.000Z',
  matchedTaxInvoices: [{ source: 'ISSUED_HERE', issuanceKey: 'txi_3sUe0nB2m9K1aVtQx7YpLw',
    approvalNumber: '2026112041000000a1b2c3d4', totalAmount: 110_000, writeDate: '2026-11-20' }],
};

const SYNC_EXAMPLE = {
  syncId: 'bsy_Yw3nK8pQ2rT5vX7zA9cE1g', bankAccountId: 'bac_Qm9yZWFsLWFjY291bnQtaWQ',
  trigger: 'REQUEST', state: 'SUCCEEDED', status: 'SUCCEEDED', from: '2026-08-22', to: '2026-11-20',
  counts: { listed: 412, created: 410, updated: 2, unchanged: 0 }, failure: null,
  requestedAt: '2026-11-20T01:04:58.000Z', startedAt: '2026-11-20T01:04:59.000Z',
  finishedAt: '2026-11-20T01:05:00.000Z',
};

const BankAccount = Type.Object(
  {
    bankAccountId: Type.String({ description: 'The bank account, `bac_…`. It is made from the ' +
      'account and the bank account it reaches, so it stays when the account is disconnected ' +
      'and connected again.' }),
    connectionId: Type.String({ description: 'The BANK_ACCOUNT connection it is read through.' }),
    bankCode: Type.String({ description: 'The bank code (금융결제원 code), e.g. `004`.' }),
    bankName: Nullable(Type.String(), 'The bank\'s Korean name; null for a code etax does not ' +
      'know.'),
    accountNumber: Type.String({ description: 'The account number, all but its last four ' +
      'digits masked.' }),
    holderName: Nullable(Type.String(), 'The holder name the bank answered with.'),
    currency: Type.Literal('KRW', { description: 'Always KRW.' }),
    state: Type.Union([Type.Literal('CONNECTED'), Type.Literal('FAILED'),
      Type.Literal('EXPIRED')], { deprecated: true, description: STATE_DEPRECATED }),
    status: Type.Union([Type.Literal('CONNECTED'), Type.Literal('FAILED'),
      Type.Literal('EXPIRED')], { description: 'The connection\'s status: `FAILED` when the ' +
      'last sync failed at the bank (see `failure`).' }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()], { description: 'Why the connection is ' +
      'FAILED or EXPIRED; null when CONNECTED.' }),
    lastSyncedAt: Nullable(Timestamp('The last sync that worked.'), 'The last sync that ' +
      'worked; null before the first.'),
    balance: Nullable(Type.Integer(), 'The balance in won the bank showed at the last sync ' +
      'that worked (as of `lastSyncedAt`); null before the first.'),
  },
  { title: 'BankAccount', additionalProperties: false, examples: [ACCOUNT_EXAMPLE] },
);

export const BankAccountListQuery = Type.Object(
  pageQueryFields('accounts', 100),
  { additionalProperties: false },
);

export const BankAccountList = Type.Object(
  { items: Type.Array(BankAccount), nextCursor: NextCursor, hasMore: HasMore },
  { title: 'BankAccountList', description: 'A page of the connected bank accounts of the key\'s ' +
    'account and environment, oldest connection first.', additionalProperties: false,
  examples: [{ items: [ACCOUNT_EXAMPLE], nextCursor: null, hasMore: false }] },
);

export const BankAccountParams = Type.Object(
  { bankAccountId: Id('The bank account id, `bac_…`.') },
  { additionalProperties: false },
);

export const SyncParams = Type.Object(
  { bankAccountId: Id('The bank account id, `bac_…`.'), syncId: Id('The sync id, `bsy_…`.') },
  { additionalProperties: false },
);

export const TransactionsQuery = Type.Object(
  {
    from: Type.Optional(DateString('Only transactions booked on or after this day (Korea).')),
    to: Type.Optional(DateString('Only transactions booked on or before this day (Korea).')),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The ' +
      '`nextCursor` of the previous page, as returned. Without it the listing starts at the ' +
      'first transaction.' })),
    limit: Type.Integer({ minimum: 1, maximum: TRANSACTIONS_LIMIT_MAX, default: 100,
      description: `Transactions per page, 1 to ${TRANSACTIONS_LIMIT_MAX}.` }),
  },
  { additionalProperties: false },
);

const BankTransaction = Type.Object(
  {
    transactionId: Type.String({ description: 'The transaction, `btx_…`; the same across ' +
      'syncs, also when the bank corrects it.' }),
    bookedDate: DateString('The booking day in Korea.'),
    bookedAt: Type.String({ description: 'When it was booked: a date-time with the Korea ' +
      'offset (`2026-11-20T10:15:00+09:00`) when the bank gives the time, otherwise the ' +
      'booking day (`2026-11-20`).' }),
    direction: Type.Union([Type.Literal('DEPOSIT'), Type.Literal('WITHDRAWAL')], {
      description: '`DEPOSIT` (입금) or `WITHDRAWAL` (출금).' }),
    amount: Type.Integer({ minimum: 1, description: 'In won, positive.' }),
    balanceAfter: Nullable(Type.Integer(), 'The balance in won after it; null when the bank ' +
      'does not show it.'),
    counterpartyName: Nullable(Type.String(), 'The sender of a deposit or the receiver of a ' +
      'withdrawal, as the bank prints it.'),
    memo: Nullable(Type.String(), 'The bank\'s description (적요).'),
    branch: Nullable(Type.String(), 'The branch that booked it (취급점).'),
    changedAt: Timestamp('When etax first recorded it, or recorded the bank\'s last ' +
      'correction of it.'),
    matchedTaxInvoices: Type.Array(Type.Object({
      source: Type.Union([Type.Literal('ISSUED_HERE'), Type.Literal('COLLECTED')], {
        description: 'ISSUED_HERE: issued through etax by the account. COLLECTED: a sale ' +
          'collected from the tax portal into the books (docs/revenue-expense.md).' }),
      issuanceKey: Type.Union([Type.String(), Type.Null()], { description: 'The tax invoice ' +
        'issued here; null for a collected one.' }),
      approvalNumber: Type.Union([Type.String(), Type.Null()], { description: 'Its approval ' +
        'number (국세청 승인번호); null for one issued here that is not transmitted yet.' }),
      totalAmount: Type.Integer({ description: 'Its total in won.' }),
      writeDate: DateString('Its write date.'),
    }, { additionalProperties: false }), { maxItems: 10, description: 'Deposits only: ' +
      'sales tax invoices of the account (issued here or collected) this deposit may pay ' +
      '(same total, recipient named like the sender; docs/bank-transactions.md § Matching ' +
      'hints). A hint; nothing is marked paid. Empty when none match.' }),
  },
  { title: 'BankTransaction', additionalProperties: false, examples: [TRANSACTION_EXAMPLE] },
);

export const BankTransactionPage = Type.Object(
  {
    items: Type.Array(BankTransaction),
    nextCursor: Type.String({ description: 'Pass it as `cursor` for the transactions after ' +
      'this page; always present, even when the page is empty, so a client can keep it and ' +
      'read what later syncs add.' }),
    hasMore: Type.Boolean({ description: 'Whether more transactions follow right now.' }),
  },
  { title: 'BankTransactionPage', description: 'Transactions in booking order.',
    additionalProperties: false,
    examples: [{ items: [TRANSACTION_EXAMPLE], nextCursor: 'WyIyMDI2LTExLTIwIiwzXQ',
      hasMore: false }] },
);

export const SyncAccepted = Type.Object(
  { syncId: Type.String({ description: 'The sync: a new one, or the one of the account ' +
    'already queued or running, which this request joined.' }) },
  { title: 'BankAccountSyncAccepted', description: 'The sync runs in the background.',
    additionalProperties: false, examples: [{ syncId: 'bsy_Yw3nK8pQ2rT5vX7zA9cE1g' }] },
);

export const Sync = Type.Object(
  {
    syncId: Type.String(),
    bankAccountId: Type.String(),
    trigger: Type.Union([Type.Literal('REQUEST'), Type.Literal('SCHEDULE')], {
      description: '`REQUEST`: asked for through the API; `SCHEDULE`: queued by the schedule.' }),
    state: Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'),
      Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], { deprecated: true,
      description: STATE_DEPRECATED }),
    status: Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'),
      Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], { description: 'Where the sync ' +
      'stands.' }),
    from: Nullable(DateString('First booking day read.'), 'First booking day read; null until ' +
      'it runs.'),
    to: Nullable(DateString('Last booking day read.'), 'Last booking day read; null until it ' +
      'runs.'),
    counts: Type.Object({
      listed: Type.Integer({ description: 'Lines the bank listed.' }),
      created: Type.Integer({ description: 'New transactions.' }),
      updated: Type.Integer({ description: 'Transactions the bank corrected since they were ' +
        'stored.' }),
      unchanged: Type.Integer({ description: 'Transactions already stored as they are.' }),
    }, { additionalProperties: false }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()], { description: 'Why it FAILED.' }),
    requestedAt: Timestamp('When it was requested.'),
    startedAt: Nullable(Timestamp('When it started.'), 'When it started.'),
    finishedAt: Nullable(Timestamp('When it ended.'), 'When it ended.'),
  },
  { title: 'BankAccountSync', description: 'A sync of a bank account.',
    additionalProperties: false, examples: [SYNC_EXAMPLE] },
);
