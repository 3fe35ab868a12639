import assert from 'node:assert/strict';
import { newId } from '../../domain/ids.ts';
import type pg from 'pg';
import type { Db, Executor } from '../db/connect.ts';
import type { Scope } from '../scope-types.ts';
import { cursorDate, cursorString, type CursorList, type PageCursors } from '../cursor.ts';
import { cursorTimestamp } from '../cursor-timestamps.ts';
import { ApiError } from '../errors.ts';
import { createBalanceReader, type BalanceReader } from './balance-reader.ts';
import { createLedgerBatches, type LedgerBatches } from './ledger-batches.ts';
import { settle } from './settle.ts';
import * as reads from './ledger-reads.ts';
import { currentRequestId } from '../request-context.ts';
import * as store from './store.ts';

// The only door through which point balances change: reserve → capture | release | expire,
// debits of work already done, grants and refunds. available = posted − reserved, and the
// ledger sum always equals posted.

export type PointBalance = { balance: number; reserved: number; available: number };
export type Reservation = { reservationId: string; reservedPoints: number };
export type SettleOutcome =
  | { kind: 'settled'; capturedPoints: number; releasedPoints: number }
  | { kind: 'alreadySettled' };

// One sweep expires at most this many reservations, so a backlog is cleared over several runs
// instead of one long transaction.
export const EXPIRY_BATCH_SIZE = 1_000;

type Deps = {
  db: Db;
  // For reservation batches (Database.relaxedPool); the main pool when absent.
  relaxedPool?: pg.Pool;
  reservationTtlMs: number;
  // Named prepared statements for the hot reads; false on the embedded database.
  preparedStatements?: boolean;
  // Told of points charged and refunded by price row, for the metrics (docs/operations.md
  // § Metrics), once the statement that moved them succeeded.
  movements?: PointMovements;
};

type PointMovements = {
  charged(operation: string, points: number): void;
  refunded(operation: string, points: number): void;
};

const UNTOLD: PointMovements = { charged() {}, refunded() {} };

function toBalance(row: store.BalanceRow): PointBalance {
  assert(row.reservedPoints >= 0);
  assert(row.postedPoints >= row.reservedPoints);
  return {
    balance: row.postedPoints,
    reserved: row.reservedPoints,
    available: row.postedPoints - row.reservedPoints,
  };
}

const NO_BALANCE: store.BalanceRow = { postedPoints: 0, reservedPoints: 0 };

async function getBalance(tx: Executor, key: Scope): Promise<PointBalance> {
  return toBalance((await store.findBalance(tx, key)) ?? NO_BALANCE);
}

// Reserves the worst-case charge before any upstream call. Refusals (docs/points.md): the posted
// balance below the amount is 402; a balance that covers it while other reservations hold the
// difference is 409.
async function reserve(
  batches: LedgerBatches,
  input: Scope & { operation: string; points: number },
): Promise<Reservation> {
  assert(Number.isSafeInteger(input.points));
  assert(input.points > 0, 'a reservation must be for a positive amount');
  const reservationId = newId('reservation');
  const row = await batches.reserve({ ...input, reservationId, requestId: currentRequestId() });
  if (row.reservationId !== null) {
    assert.equal(row.reservationId, reservationId);
    return { reservationId, reservedPoints: input.points };
  }
  throw refusal(row.postedPoints, input.points);
}

// The reservation rule for a charge that is not reserved: the posted balance below the amount
// is 402, points held by other reservations 409.
function refusal(postedPoints: number | null, points: number): ApiError {
  if ((postedPoints ?? 0) < points) return new ApiError('PAYMENT_REQUIRED');
  return new ApiError('AVAILABLE_POINTS_INSUFFICIENT');
}

// Throws the 402 or 409 a reservation of `points` would get now, without reserving anything: the
// answer of local work that delivered nothing to debit (charge.ts, localWork).
async function requireAvailable(
  readBalance: BalanceReader,
  input: Scope & { points: number },
): Promise<void> {
  assert(Number.isSafeInteger(input.points) && input.points > 0);
  const row = await readBalance(input);
  if (row !== null && row.postedPoints - row.reservedPoints >= input.points) return;
  throw refusal(row?.postedPoints ?? null, input.points);
}

// Charges `points` for work already done, in one statement: a 'charge' ledger entry and the
// posted balance, only while the available points cover `requiredPoints` (the worst case the
// call was priced at); otherwise 402 or 409 by that amount, and nothing changes.
async function debit(
  batches: LedgerBatches,
  movements: PointMovements,
  input: Scope & { operation: string; points: number; requiredPoints: number },
): Promise<void> {
  assert(Number.isSafeInteger(input.points) && input.points > 0, 'a debit must be positive');
  assert(Number.isSafeInteger(input.requiredPoints) && input.requiredPoints >= input.points);
  const row = await batches.debit({ ...input, ledgerEntryId: newId('ledgerEntry'),
    requestId: currentRequestId(), documentId: null });
  if (!row.accepted) throw refusal(row.postedPoints, input.requiredPoints);
  movements.charged(input.operation, input.points);
}

// Debits many charges inside the caller's transaction, for work that is recorded in that
// transaction (an accepted cash receipt): the charge commits exactly when the work does, and
// there is no reservation to capture afterwards. Each item is debited only while the points
// available cover it, in order; answers per item its 'charge' ledger entry, or the 402 or 409 a
// reservation would have got. Rolling the transaction back undoes the debits.
async function debitInTransaction(
  tx: Executor,
  movements: PointMovements,
  // Each item names its request (and document): the transaction may record several requests'
  // work together, so the request being served is not necessarily the item's.
  items: ReadonlyArray<Scope & { operation: string; points: number; requestId: string | null;
    documentId?: string }>,
): Promise<Array<{ ledgerEntryId: string } | ApiError>> {
  const debits = items.map((item) => {
    assert(Number.isSafeInteger(item.points) && item.points > 0, 'a debit must be positive');
    return { ...item, requiredPoints: item.points, ledgerEntryId: newId('ledgerEntry'),
      documentId: item.documentId ?? null };
  });
  const rows = await store.debitManyIn(tx, debits);
  assert.equal(rows.length, debits.length);
  return rows.map((row, index) => {
    const debit = debits[index]!;
    assert.equal(row.ledgerEntryId, debit.ledgerEntryId);
    if (!row.accepted) return refusal(row.postedPoints, debit.points);
    movements.charged(debit.operation, debit.points);
    return { ledgerEntryId: debit.ledgerEntryId };
  });
}

// Gives back a charge debited with its work (debitInTransaction) whose work then did not
// happen, in the caller's transaction. `ledgerEntryId` is derived from what is refunded, so a
// repeated refund pays nothing; answers whether this one paid.
async function refundCharge(
  tx: Executor,
  movements: PointMovements,
  input: Scope & { operation: string; points: number; ledgerEntryId: string; memo: string;
    documentId?: string },
): Promise<boolean> {
  assert(Number.isSafeInteger(input.points) && input.points > 0, 'a refund must be positive');
  const paid = (await store.refund(tx, { ...input, documentId: input.documentId ?? null }))
    !== null;
  if (paid) movements.refunded(input.operation, input.points);
  return paid;
}

// Captures exactly what the operation charges and releases the rest, at most once.
async function capture(
  batches: LedgerBatches,
  movements: PointMovements,
  input: { reservation: Reservation; chargePoints: number },
): Promise<SettleOutcome> {
  const { capturedPoints, releasedPoints } = settle({
    reservedPoints: input.reservation.reservedPoints,
    chargePoints: input.chargePoints,
  });
  const item = {
    reservationId: input.reservation.reservationId,
    capturedPoints,
    ledgerEntryId: newId('ledgerEntry'),
  };
  const row = await batches.capture(item);
  if (row === null) return { kind: 'alreadySettled' };
  assert.equal(row.reservationPoints, input.reservation.reservedPoints);
  assert.equal(row.ledgerEntryCount, capturedPoints > 0 ? 1 : 0);
  assert(row.postedPoints >= row.reservedPoints);
  if (capturedPoints > 0) movements.charged(row.operation, capturedPoints);
  return { kind: 'settled', capturedPoints, releasedPoints };
}

// Returns the whole reservation to the available balance, at most once. Every failure path of an
// operation ends here.
async function release(tx: Executor, reservation: Reservation): Promise<SettleOutcome> {
  assert(reservation.reservedPoints > 0);
  const row = await store.release(tx, {
    reservationId: reservation.reservationId,
    status: 'released',
  });
  if (row === null) return { kind: 'alreadySettled' };
  assert.equal(row.reservationPoints, reservation.reservedPoints);
  assert(row.reservedPoints >= 0);
  return { kind: 'settled', capturedPoints: 0, releasedPoints: reservation.reservedPoints };
}

async function grant(
  tx: Executor,
  input: Scope & { points: number; memo?: string },
): Promise<PointBalance> {
  assert(Number.isSafeInteger(input.points));
  assert(input.points > 0, 'a grant must be positive');
  const row = await store.grant(tx, {
    ...input,
    ledgerEntryId: newId('ledgerEntry'),
    memo: input.memo ?? null,
  });
  assert(row !== null, `no balance for ${input.accountId}/${input.environment}`);
  return toBalance(row);
}

// Gives back the points an operation captured for work that then did not happen (a tax invoice
// that failed or was canceled). The refund is paid only when its reservation was captured; a
// reservation released or expired charged nothing. One that is still open is being captured
// right now by the request that made it, so the caller must retry: this throws, and the
// caller's transaction rolls back. `ledgerEntryId` is derived from what is refunded, so a
// repeated refund pays nothing.
class CapturePendingError extends Error {}

async function refundCapture(
  tx: Executor,
  movements: PointMovements,
  input: Scope & { reservationId: string; points: number; ledgerEntryId: string;
    memo: string; documentId?: string },
): Promise<'refunded' | 'alreadyRefunded' | 'nothingCaptured'> {
  assert(Number.isSafeInteger(input.points) && input.points > 0, 'a refund must be positive');
  const { status, operation } = await store.lockReservationStatus(tx, input) ??
    { status: null, operation: '' };
  if (status === 'reserved') {
    throw new CapturePendingError(`reservation ${input.reservationId} is not settled yet`);
  }
  if (status !== 'captured') return 'nothingCaptured';
  const row = await store.refund(tx, { ...input, operation,
    documentId: input.documentId ?? null });
  if (row === null) return 'alreadyRefunded';
  movements.refunded(operation, input.points);
  return 'refunded';
}

// Expires stale reservations in one bounded batch; returns how many were expired.
async function expireStaleReservations(tx: Executor): Promise<number> {
  const expiredCount = await store.expireDue(tx, EXPIRY_BATCH_SIZE);
  assert(expiredCount >= 0 && expiredCount <= EXPIRY_BATCH_SIZE);
  return expiredCount;
}

export type LedgerQuery = {
  kinds?: readonly reads.LedgerKind[];
  operations?: readonly string[];
  // Seoul calendar dates, YYYY-MM-DD, both included.
  from?: string;
  to?: string;
  // A ledgerPage's nextCursor, unchanged.
  cursor?: string;
  limit: number;
};

export type LedgerPage = { entries: reads.LedgerEntry[]; hasMore: boolean;
  nextCursor: string | null };

// A cursor names the last entry of its page: its creation to the microsecond and its id.
const LEDGER_CURSOR = [cursorTimestamp, cursorString(/^led_[A-Za-z0-9_-]{1,200}$/)] as const;

function ledgerDate(name: string, value: string | undefined): string | undefined {
  if (value !== undefined && !cursorDate(value)) {
    throw new ApiError('INVALID_REQUEST', `query.${name} is not a date that exists.`);
  }
  return value;
}

const ledgerList = (scope: Scope): CursorList => ({ list: 'points.ledger', scope });

// One page of a balance's ledger, newest first, with the cursor of the next.
async function ledgerPage(tx: Executor, cursors: PageCursors, scope: Scope, query: LedgerQuery):
  Promise<LedgerPage> {
  assert(Number.isSafeInteger(query.limit) && query.limit >= 1);
  const from = ledgerDate('createdDateFrom', query.from);
  const to = ledgerDate('createdDateTo', query.to);
  if (from !== undefined && to !== undefined && from > to) {
    throw new ApiError('INVALID_REQUEST', 'query.createdDateFrom is after query.createdDateTo.');
  }
  const before = query.cursor === undefined ? undefined
    : (([position, id]) => ({ position, id }))(cursors.decode(ledgerList(scope), query.cursor,
      [...LEDGER_CURSOR]));
  // One more than the page, to know whether another follows.
  const rows = await reads.listLedgerEntries(tx, scope, { kinds: query.kinds,
    operations: query.operations, from, to, before, limit: query.limit + 1 });
  const entries = rows.slice(0, query.limit);
  const last = entries.at(-1);
  const hasMore = rows.length > query.limit && last !== undefined;
  return { entries, hasMore,
    nextCursor: hasMore ? cursors.encode(ledgerList(scope), [last.position, last.id]) : null };
}

// A balance's history (ledger-reads.ts), a page at a time: GET /v1/points/ledger and the
// dashboard's points page. Its cursors are sealed like every list's (platform/cursor.ts), with
// the key the areas are built with, so it is made beside them.
export function createLedgerPages(db: Db, cursors: PageCursors) {
  return {
    ledgerPage: (scope: Scope, query: LedgerQuery) => ledgerPage(db, cursors, scope, query),
  };
}

export type LedgerPages = ReturnType<typeof createLedgerPages>;

// Reservations and captures share statements with concurrent requests (ledger-batches.ts), so
// they run outside any transaction. The other functions take an optional transaction as their
// last argument, so an area can release, grant or read inside the transaction of its own work.
export function createPointsService(deps: Deps) {
  assert(Number.isSafeInteger(deps.reservationTtlMs) && deps.reservationTtlMs > 0);
  const { db } = deps;
  const movements = deps.movements ?? UNTOLD;
  const readBalance = createBalanceReader({
    db,
    preparedStatements: deps.preparedStatements ?? false,
  });
  // Reservations and captures of concurrent requests share statements.
  const batches = createLedgerBatches({
    db,
    relaxedPool: deps.relaxedPool ?? db.$client,
    reservationTtlMs: deps.reservationTtlMs,
    preparedStatements: deps.preparedStatements ?? false,
  });
  return {
    getBalance: async (key: Scope, tx?: Executor) =>
      tx === undefined ? toBalance((await readBalance(key)) ?? NO_BALANCE) : getBalance(tx, key),
    reserve: (input: Parameters<typeof reserve>[1]) => reserve(batches, input),
    requireAvailable: (input: Parameters<typeof requireAvailable>[1]) =>
      requireAvailable(readBalance, input),
    debit: (input: Parameters<typeof debit>[2]) => debit(batches, movements, input),
    capture: (input: Parameters<typeof capture>[2]) => capture(batches, movements, input),
    release: (reservation: Reservation, tx: Executor = db) => release(tx, reservation),
    grant: (input: Parameters<typeof grant>[1], tx: Executor = db) => grant(tx, input),
    refundCapture: (input: Parameters<typeof refundCapture>[2], tx: Executor) =>
      refundCapture(tx, movements, input),
    debitInTransaction: (tx: Executor, items: Parameters<typeof debitInTransaction>[2]) =>
      debitInTransaction(tx, movements, items),
    refundCharge: (input: Parameters<typeof refundCharge>[2], tx: Executor) =>
      refundCharge(tx, movements, input),
    expireStaleReservations: (tx: Executor = db) => expireStaleReservations(tx),
    extendReservation: (input: Parameters<typeof store.extendReservation>[1], tx: Executor = db) =>
      store.extendReservation(tx, input),
    ensureBalances: (accountId: string, tx: Executor = db) =>
      store.ensureBalances(tx, accountId, ['test', 'live']),
    usageSince: (scope: Scope, fromDate: string, untilDate?: string) =>
      reads.usageSince(db, scope, fromDate, untilDate),
    openReservations: (scope: Scope, limit: number) =>
      reads.listOpenReservations(db, scope, limit),
  };
}

export type PointsService = ReturnType<typeof createPointsService>;
