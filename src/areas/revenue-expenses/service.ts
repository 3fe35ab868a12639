import { newId } from '../../domain/ids.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import {
  BIGINT_COLUMN_MAX,
  cursorDate,
  cursorInteger,
  sequenceCursors,
  type PageCursors,
} from '../../platform/cursor.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import { notConfiguredMessage } from '../../platform/live-services.ts';
import type { IssuedInvoiceChange } from '../../platform/issued-invoices.ts';
import type { StageJob } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import { failureOfRow } from '../../platform/stored-failure.ts';
import type { ConnectionsService } from '../connections/index.ts';
import * as store from './store.ts';

// The revenue and expense books (docs/revenue-expense.md): the feed of own tax invoices in the
// order of change, collections from the tax portal, and the sales and purchases of invoices
// issued through etax, recorded in the transaction that gives them their approval number.

export const COLLECTION_QUEUE = 'revenue-expenses.collect';
// The longest range one collection covers.
export const COLLECTION_MONTHS_MAX = 12;
export const FEED_LIMIT_MAX = 1_000;

type ServiceDeps = {
  db: Db;
  stage: StageJob;
  connections: ConnectionsService;
  // Whether collections can reach the portal in an environment (live needs the gateway).
  portalAvailable(environment: Environment): boolean;
  now: () => Date;
  cursors: PageCursors;
};

export type FeedQuery = store.FeedFilter & { cursor?: string; limit: number };

const monthIndex = (month: string) => {
  const [year, number] = month.split('-').map(Number) as [number, number];
  return year * 12 + number - 1;
};

export function monthsBetween(from: string, to: string): string[] {
  const months: string[] = [];
  for (let index = monthIndex(from); index <= monthIndex(to); index += 1) {
    months.push(`${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`);
  }
  return months;
}

// The longest range of months the books by month cover at once.
const BOOK_MONTHS_MAX = 24;
const MONTH = /^[0-9]{4}-(0[1-9]|1[0-2])$/;

function nextMonth(month: string): string {
  const index = monthIndex(month) + 1;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}`;
}

// The months of a range, refused when a bound is not `YYYY-MM` or the range is too long.
function checkedMonths(range: { from: string; to: string }): string[] {
  if (!MONTH.test(range.from) || !MONTH.test(range.to)) {
    throw new ApiError('INVALID_REQUEST', 'A month is written YYYY-MM.');
  }
  if (range.from > range.to) throw new ApiError('INVALID_REQUEST', 'from must not be after to.');
  const months = monthsBetween(range.from, range.to);
  if (months.length > BOOK_MONTHS_MAX) {
    throw new ApiError('INVALID_REQUEST', `At most ${BOOK_MONTHS_MAX} months at once.`);
  }
  return months;
}

const seoulMonth = (date: Date) =>
  date.toLocaleDateString('sv-SE', { timeZone: 'Asia/Seoul' }).slice(0, 7);

function toItem(row: store.BookRow) {
  return {
    direction: row.direction as store.Direction,
    source: row.source as store.Source,
    approvalNumber: row.approvalNumber,
    issuanceKey: row.issuanceKey,
    writeDate: row.writeDate,
    issueDate: row.issueDate,
    counterpart: { businessRegistrationNumber: row.counterpartNumber,
      name: row.counterpartName },
    supplyCost: row.supplyCost,
    tax: row.tax,
    totalAmount: row.totalAmount,
    taxType: row.taxType as 'TAXABLE' | 'ZERO_RATED' | 'TAX_FREE',
    amendment: row.amendmentReason === null ? null : { reason: row.amendmentReason,
      originalApprovalNumber: row.originalApprovalNumber ?? '' },
    status: row.status as 'ISSUED' | 'TRANSMITTED',
    late: row.late,
    changeSequence: row.changeSequence,
    changedAt: row.changedAt.toISOString(),
  };
}

function toCollection(row: store.CollectionRow) {
  return {
    collectionId: row.id,
    connectionId: row.connectionId,
    from: row.fromMonth,
    to: row.toMonth,
    state: row.state as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED',
    status: row.state as 'QUEUED' | 'RUNNING' | 'SUCCEEDED' | 'FAILED',
    counts: { collected: row.collectedCount, inserted: row.insertedCount,
      updated: row.updatedCount, unchanged: row.unchangedCount },
    failure: failureOfRow(row),
    requestedAt: row.requestedAt.toISOString(),
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
  };
}


// The books' entries for an invoice issued through etax: the issuer's sale, and a purchase of
// every account of the environment connected to the recipient's business. A trustee's document
// (위수탁) is the supplier's sale, not the trustee's (부가가치세법 시행령 §69①: it is issued in the
// supplier's name): it is booked to every account connected to the supplier's business, and to
// the issuing account only when that account is one of them.
function issuedEntries(change: IssuedInvoiceChange, recipients: readonly Scope[],
  suppliers: readonly Scope[]) {
  const common = { source: 'ISSUED_HERE' as const, approvalNumber: change.approvalNumber,
    issuanceKey: change.issuanceKey, writeDate: change.writeDate, issueDate: change.issueDate,
    supplyCost: change.supplyCost, tax: change.tax, totalAmount: change.totalAmount,
    taxType: change.taxType, amendmentReason: change.amendment?.reason ?? null,
    originalApprovalNumber: change.amendment?.originalApprovalNumber ?? null,
    status: change.status, late: change.late };
  const saleEntry = { ...common, direction: 'SALES' as const,
    counterpartNumber: change.recipient.businessRegistrationNumber,
    counterpartName: change.recipient.name };
  // The issuance key names the document in the issuing account only.
  const sales = change.broker === null ? [{ scope: change.scope, entry: saleEntry }]
    : suppliers.map((scope) => ({ scope, entry: scopeKey(scope) === scopeKey(change.scope)
      ? saleEntry : { ...saleEntry, issuanceKey: null } }));
  // A purchase is booked to the recipient's accounts, which must not learn the supplier's own
  // key for the invoice (it names the document in the supplier's account only).
  return [...sales, ...recipients.map((scope) => ({ scope, entry: { ...common, issuanceKey: null,
    direction: 'PURCHASE' as const, counterpartNumber: change.supplier.businessRegistrationNumber,
    counterpartName: change.supplier.name } }))];
}

const recipientKey = (change: IssuedInvoiceChange) =>
  `${change.scope.environment}:${change.recipient.businessRegistrationNumber}`;

const supplierKey = (change: IssuedInvoiceChange) =>
  `${change.scope.environment}:${change.supplier.businessRegistrationNumber}`;

// The businesses whose connected accounts book an invoice: every recipient, and the supplier of a
// trustee's document.
const connectedBusinesses = (changes: readonly IssuedInvoiceChange[]) => [
  ...changes.map((change) => ({ environment: change.scope.environment,
    number: change.recipient.businessRegistrationNumber })),
  ...changes.filter((change) => change.broker !== null).map((change) => ({
    environment: change.scope.environment, number: change.supplier.businessRegistrationNumber })),
];

const scopeKey = (scope: Scope) => `${scope.accountId}\u0000${scope.environment}`;

// The connected accounts an invoice is booked to. In the sandbox any account may register an
// issuer, and so connect the tax portal, under any business number (nothing proves it owns the
// number), so a test invoice is booked in the account that issued it only: another account never
// learns of it. Live connections log in to the tax portal itself, which proves the number.
function bookableScopes(change: IssuedInvoiceChange, scopes: readonly Scope[]): readonly Scope[] {
  return change.scope.environment === 'test'
    ? scopes.filter((scope) => scope.accountId === change.scope.accountId) : scopes;
}

// The list a month's entries' cursors are bound to.
const MONTH_ENTRIES_LIST = 'revenueExpenses.monthEntries';

// The books by month, the entries behind a month's figures, and the latest collections: what
// the dashboard's books page reads.
function createMonthlyReads(db: Db, cursors: PageCursors) {
  // The books by month from `from` to `to` (`YYYY-MM`, at most BOOK_MONTHS_MAX months): every
  // month of the range, with zeros where nothing was written, sales and purchases apart.
  async function monthlyTotals(scope: Scope, range: { from: string; to: string }) {
    const months = checkedMonths(range);
    const rows = await store.monthTotals(db, scope, `${range.from}-01`,
      `${nextMonth(range.to)}-01`);
    const zero = { count: 0, supplyCost: 0, tax: 0, totalAmount: 0 };
    return months.map((month) => {
      const of = (direction: store.Direction) => {
        const row = rows.find((found) => found.month === month && found.direction === direction);
        return row === undefined ? zero : { count: row.count, supplyCost: row.supplyCost,
          tax: row.tax, totalAmount: row.totalAmount };
      };
      return { month, sales: of('SALES'), purchases: of('PURCHASE') };
    });
  }

  // The entries behind one month's figure of one direction, by write date, paged.
  async function monthEntries(scope: Scope, query: { month: string; direction: store.Direction;
    cursor?: string | undefined; limit: number }) {
    checkedMonths({ from: query.month, to: query.month });
    const after = query.cursor === undefined ? null
      : cursors.decode<[string, number]>({ list: MONTH_ENTRIES_LIST, scope }, query.cursor,
        [cursorDate, cursorInteger(1, BIGINT_COLUMN_MAX)]);
    const rows = await store.entriesByWriteDate(db, scope, { from: `${query.month}-01`,
      toExclusive: `${nextMonth(query.month)}-01`, direction: query.direction, after,
      limit: query.limit + 1 });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return { items: page.map(toItem), nextCursor: rows.length > query.limit && last
      ? cursors.encode({ list: MONTH_ENTRIES_LIST, scope }, [last.writeDate, last.id]) : null };
  }

  async function listCollections(scope: Scope, limit: number) {
    return (await store.listCollections(db, scope, limit)).map(toCollection);
  }

  return { monthlyTotals, monthEntries, listCollections };
}

export function createRevenueExpensesService(deps: ServiceDeps) {
  const { db } = deps;
  // A cursor is the position of the last item a client read, in the account's order of change.
  const feedCursors = sequenceCursors(deps.cursors, 'revenueExpenses.taxInvoices.list');

  async function readFeed(scope: Scope, query: FeedQuery) {
    const after = feedCursors.decode(scope, query.cursor) ?? 0;
    if (query.writeDateFrom !== undefined && query.writeDateTo !== undefined &&
      query.writeDateFrom > query.writeDateTo) {
      throw new ApiError('INVALID_REQUEST', 'query.writeDateFrom must not be after ' +
        'query.writeDateTo.');
    }
    const rows = await store.readFeed(db, scope, after, query.limit + 1, query);
    const page = rows.slice(0, query.limit);
    const last = page.at(-1)?.changeSequence ?? after;
    return { items: page.map(toItem), nextCursor: feedCursors.encode(scope, last),
      hasMore: rows.length > query.limit };
  }

  async function collect(scope: Scope, range: { from: string; to: string }) {
    if (range.from > range.to) {
      throw new ApiError('INVALID_REQUEST', 'body.from must not be after body.to.');
    }
    if (monthsBetween(range.from, range.to).length > COLLECTION_MONTHS_MAX) {
      throw new ApiError('INVALID_REQUEST',
        `A collection covers at most ${COLLECTION_MONTHS_MAX} months.`);
    }
    if (range.to > seoulMonth(deps.now())) {
      throw new ApiError('INVALID_REQUEST', 'body.to must not be after the current month.');
    }
    const connection = await deps.connections.firstConnection(scope, 'HOMETAX');
    if (connection === null) throw new ApiError('CONNECTION_REQUIRED');
    if (!deps.portalAvailable(scope.environment)) {
      throw new ApiError('SERVICE_UNAVAILABLE', notConfiguredMessage('TAX_PORTAL'));
    }
    return db.transaction(async (tx) => {
      const id = newId('revenueExpenseCollection');
      const inserted = await store.insertCollection(tx, { id, ...scope,
        connectionId: connection.id, fromMonth: range.from, toMonth: range.to, state: 'QUEUED' });
      if (inserted !== null) {
        await deps.stage(tx, COLLECTION_QUEUE, { collectionId: id });
        return { collectionId: id, joined: false };
      }
      // One is queued or running for this connection: the request joins it.
      const active = await store.findActiveCollection(tx, connection.id);
      if (active === null) throw new ApiError('SERVICE_UNAVAILABLE');
      return { collectionId: active.id, joined: true };
    });
  }

  async function getCollection(scope: Scope, collectionId: string) {
    const row = await store.findCollection(db, scope, collectionId);
    if (row === null) throw new ApiError('NOT_FOUND', 'No collection has this id.');
    return toCollection(row);
  }

  // RecordIssuedInvoices: in the caller's transaction, in one statement per step however many
  // invoices and accounts (store.recordEntriesOfScopes).
  async function recordIssuedInvoices(tx: Executor, changes: readonly IssuedInvoiceChange[]) {
    if (changes.length === 0) return;
    const connected = await deps.connections.scopesConnectedTo(tx, connectedBusinesses(changes));
    const byScope = new Map<string, { scope: Scope; entries: store.BookEntry[] }>();
    for (const change of changes) {
      for (const { scope, entry } of issuedEntries(change,
        bookableScopes(change, connected.get(recipientKey(change)) ?? []),
        bookableScopes(change, connected.get(supplierKey(change)) ?? []))) {
        const group = byScope.get(scopeKey(scope)) ?? { scope, entries: [] };
        group.entries.push(entry);
        byScope.set(scopeKey(scope), group);
      }
    }
    await store.recordEntriesOfScopes(tx, [...byScope.values()], deps.now());
  }

  return { readFeed, collect, getCollection, recordIssuedInvoices,
    ...createMonthlyReads(db, deps.cursors) };
}

export type RevenueExpensesService = ReturnType<typeof createRevenueExpensesService>;
