import { sql } from 'drizzle-orm';
import { timestampPosition } from '../cursor-timestamps.ts';
import type { Executor } from '../db/connect.ts';
import type { Scope } from '../scope-types.ts';

// Reading a balance's history: the ledger's entries with the operation that made each (the
// reservation's operation for a capture, the debit's own for a charge, whose memo names it),
// points spent per day and operation, and the reservations still open. Read-only; the ledger
// is written only by store.ts.

export const LEDGER_KINDS = ['grant', 'capture', 'charge', 'refund'] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

export const RESERVATION_STATUSES = ['reserved', 'captured', 'released', 'expired'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

// The reservation a capture settled: what was held, what was taken of it and when.
type LedgerReservation = {
  id: string;
  status: ReservationStatus;
  reservedPoints: number;
  capturedPoints: number | null;
  createdAt: Date;
  settledAt: Date | null;
};

export type LedgerEntry = {
  id: string;
  kind: LedgerKind;
  amountPoints: number;
  balanceAfterPoints: number;
  // The price row charged or refunded; null for grants.
  operation: string | null;
  reservationId: string | null;
  reservation: LedgerReservation | null;
  // The Trace-Id of the request that charged, when the charge was made by a request.
  requestId: string | null;
  // The one document a charge or refund is for, when it is for exactly one.
  documentId: string | null;
  memo: string | null;
  createdAt: Date;
  // createdAt to the microsecond (UTC, ISO 8601), where the next page continues: a Date holds
  // milliseconds only, and entries made in the same millisecond would be skipped.
  position: string;
};

export type LedgerFilter = {
  kinds?: readonly LedgerKind[];
  operations?: readonly string[];
  // Seoul calendar dates, YYYY-MM-DD, both included.
  from?: string;
  to?: string;
  // The entry after which the page continues, newest first.
  before?: { position: string; id: string };
  limit: number;
};

type RawEntry = Omit<LedgerEntry, 'amountPoints' | 'balanceAfterPoints' | 'createdAt' |
  'reservation'> & {
  amountPoints: string | number; balanceAfterPoints: string | number; createdAt: Date | string;
  reservationStatus: ReservationStatus | null; reservedPoints: string | number | null;
  capturedPoints: string | number | null; reservationCreatedAt: Date | string | null;
  reservationSettledAt: Date | string | null };

const numberOrNull = (value: string | number | null) => (value === null ? null : Number(value));
const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

function toEntry(row: RawEntry): LedgerEntry {
  const { reservationStatus, reservedPoints, capturedPoints, reservationCreatedAt,
    reservationSettledAt, ...entry } = row;
  const reservation = entry.reservationId === null || reservationStatus === null ? null : {
    id: entry.reservationId, status: reservationStatus, reservedPoints: Number(reservedPoints),
    capturedPoints: numberOrNull(capturedPoints), createdAt: new Date(reservationCreatedAt!),
    settledAt: dateOrNull(reservationSettledAt) };
  return { ...entry, amountPoints: Number(row.amountPoints),
    balanceAfterPoints: Number(row.balanceAfterPoints), createdAt: new Date(row.createdAt),
    reservation };
}

// The instant a Seoul calendar date begins.
const seoulMidnight = (date: string) =>
  sql`((${date}::date)::timestamp at time zone 'Asia/Seoul')`;

// An entry's price row: its own column; a capture's reservation's; a charge made before the
// column existed names it in its memo.
const OPERATION = sql`coalesce(e.operation, r.operation,
  case when e.kind = 'charge' then e.memo end)`;

// A page of a balance's entries, newest first.
export async function listLedgerEntries(tx: Executor, scope: Scope, filter: LedgerFilter):
  Promise<LedgerEntry[]> {
  const conditions = [sql`e.account_id = ${scope.accountId}`,
    sql`e.environment = ${scope.environment}`];
  if (filter.kinds !== undefined && filter.kinds.length > 0) {
    const kinds = sql.join(filter.kinds.map((kind) => sql`${kind}`), sql`, `);
    conditions.push(sql`e.kind in (${kinds})`);
  }
  if (filter.operations !== undefined && filter.operations.length > 0) {
    const operations = sql.join(filter.operations.map((operation) => sql`${operation}`),
      sql`, `);
    conditions.push(sql`${OPERATION} in (${operations})`);
  }
  if (filter.from !== undefined) {
    conditions.push(sql`e.created_at >= ${seoulMidnight(filter.from)}`);
  }
  if (filter.to !== undefined) {
    conditions.push(sql`e.created_at < ${seoulMidnight(filter.to)} + interval '1 day'`);
  }
  if (filter.before !== undefined) {
    const { position, id } = filter.before;
    conditions.push(sql`(e.created_at, e.id) < (${position}::timestamptz, ${id})`);
  }
  const result = await tx.execute(sql`
    select e.id, e.kind, e.amount_points as "amountPoints",
           e.balance_after_points as "balanceAfterPoints",
           ${OPERATION} as "operation",
           e.reservation_id as "reservationId",
           e.request_id as "requestId", e.document_id as "documentId",
           case when e.kind = 'charge' then null else e.memo end as "memo",
           e.created_at as "createdAt",
           ${timestampPosition(sql`e.created_at`)} as "position",
           r.status as "reservationStatus", r.reserved_points as "reservedPoints",
           r.captured_points as "capturedPoints", r.created_at as "reservationCreatedAt",
           r.settled_at as "reservationSettledAt"
      from point_ledger_entries e
      left join point_reservations r on r.id = e.reservation_id
     where ${sql.join(conditions, sql` and `)}
     order by e.created_at desc, e.id desc
     limit ${filter.limit}`);
  return (result.rows as RawEntry[]).map(toEntry);
}

export type UsageRow = { day: string; operation: string; points: number; calls: number };

// Points spent per Seoul day and operation since a Seoul date (included), until another
// (excluded) when given: captures and charges, less nothing (a refund is shown in the ledger, not
// as negative usage).
export async function usageSince(tx: Executor, scope: Scope, fromDate: string,
  untilDate?: string): Promise<UsageRow[]> {
  // Each capture's operation is its own reservation's, looked up by its key per row (a scalar
  // subquery, which the planner keeps as such): as a join, the planner hashed every reservation
  // of the server, a scan that grows with all accounts' history, to name the few the period's
  // captures point at.
  const result = await tx.execute(sql`
    select "day", "operation", sum("points") as "points", count(*) as "calls"
      from (select to_char(e.created_at at time zone 'Asia/Seoul', 'YYYY-MM-DD') as "day",
                   coalesce(e.operation, case when e.kind = 'charge' then e.memo
                     else (select r.operation from point_reservations r
                            where r.id = e.reservation_id) end, '') as "operation",
                   -e.amount_points as "points"
              from point_ledger_entries e
             where e.account_id = ${scope.accountId} and e.environment = ${scope.environment}
               and e.kind in ('capture', 'charge')
               and e.created_at >= ${seoulMidnight(fromDate)}
               and ${untilDate === undefined ? sql`true`
                 : sql`e.created_at < ${seoulMidnight(untilDate)}`}) as spent
     group by 1, 2
     order by 1, 2`);
  return (result.rows as Array<{ day: string; operation: string; points: string | number;
    calls: string | number }>).map((row) => ({ day: row.day, operation: row.operation,
    points: Number(row.points), calls: Number(row.calls) }));
}

export type OpenReservation = { id: string; operation: string; reservedPoints: number;
  createdAt: Date; expiresAt: Date };

// The reservations of a balance still holding points, oldest first.
export async function listOpenReservations(tx: Executor, scope: Scope, limit: number):
  Promise<OpenReservation[]> {
  const result = await tx.execute(sql`
    select id, operation, reserved_points as "reservedPoints", created_at as "createdAt",
           expires_at as "expiresAt"
      from point_reservations
     where account_id = ${scope.accountId} and environment = ${scope.environment}
       and status = 'reserved'
     order by created_at, id
     limit ${limit}`);
  return (result.rows as Array<OpenReservation & { reservedPoints: string | number;
    createdAt: Date | string; expiresAt: Date | string }>).map((row) => ({ ...row,
    reservedPoints: Number(row.reservedPoints), createdAt: new Date(row.createdAt),
    expiresAt: new Date(row.expiresAt) }));
}
