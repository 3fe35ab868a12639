import { and, eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import type { Db, Executor } from '../db/connect.ts';
import { numberedSql } from '../db/numbered-sql.ts';
import { executePrepared } from '../db/prepared.ts';
import type { Scope } from '../scope-types.ts';
import { pointBalances } from '../db/tables.ts';

// SQL of the points ledger. Each money movement is one statement, so it is atomic without an
// explicit transaction and costs one round trip. Rules and assertions live in service.ts.

export type BalanceRow = { postedPoints: number; reservedPoints: number };

export async function ensureBalances(tx: Executor, accountId: string, environments: string[]) {
  await tx
    .insert(pointBalances)
    .values(environments.map((environment) => ({ accountId, environment })))
    .onConflictDoNothing();
}

export async function findBalance(tx: Executor, key: Scope): Promise<BalanceRow | null> {
  const [row] = await tx
    .select({
      postedPoints: pointBalances.postedPoints,
      reservedPoints: pointBalances.reservedPoints,
    })
    .from(pointBalances)
    .where(
      and(
        eq(pointBalances.accountId, key.accountId),
        eq(pointBalances.environment, key.environment),
      ),
    )
    .limit(1);
  return row ?? null;
}

// Reads many balances in one round trip. Rows come back in any order; missing balances are
// absent. With `statementName` the query is a named prepared statement, which PostgreSQL parses
// and plans once per connection. The embedded database cannot use names: its socket multiplexes
// every client onto one backend, where a name prepared by one client collides with the next.
export async function findBalances(
  db: Db,
  keys: readonly Scope[],
  statementName?: string,
): Promise<Array<Scope & BalanceRow>> {
  const result = await db.$client.query<Scope & BalanceRow>({
    name: statementName,
    text: `select b.account_id as "accountId", b.environment as "environment",
                  b.posted_points as "postedPoints", b.reserved_points as "reservedPoints"
             from point_balances b
             join unnest($1::text[], $2::text[]) as k(account_id, environment)
               on b.account_id = k.account_id and b.environment = k.environment`,
    values: [keys.map((key) => key.accountId), keys.map((key) => key.environment)],
  });
  return result.rows;
}

export type SettledRow = {
  accountId: string;
  environment: string;
  reservationPoints: number;
  // The price row of the reservation.
  operation: string;
  postedPoints: number;
  reservedPoints: number;
  ledgerEntryCount: number;
};

// Returns an open reservation whole to the available balance. `status` is 'released' when the
// service gives it back and 'expired' when the sweep does.
export async function release(
  tx: Executor,
  input: { reservationId: string; status: 'released' | 'expired' },
): Promise<{ reservationPoints: number; reservedPoints: number } | null> {
  const result = await tx.execute<{ reservationPoints: number; reservedPoints: number }>(sql`
    with settled as (
      update point_reservations
         set status = ${input.status}, settled_at = now()
       where id = ${input.reservationId} and status = 'reserved'
      returning account_id, environment, reserved_points
    ), balance as (
      update point_balances b
         set reserved_points = b.reserved_points - settled.reserved_points, updated_at = now()
        from settled
       where b.account_id = settled.account_id and b.environment = settled.environment
      returning b.reserved_points
    )
    select settled.reserved_points as "reservationPoints",
           balance.reserved_points as "reservedPoints"
      from settled join balance on true`);
  return result.rows[0] ?? null;
}

// Extends an open reservation until `expiresAt` instead of the usual time to live, for work that
// settles it later than the request that made it (a document issued by a job). Answers whether
// the reservation was still open.
export async function extendReservation(
  tx: Executor,
  input: { reservationId: string; expiresAt: Date },
): Promise<boolean> {
  const result = await tx.execute(sql`
    update point_reservations set expires_at = ${input.expiresAt.toISOString()}::timestamptz
     where id = ${input.reservationId} and status = 'reserved'
    returning id`);
  return result.rows.length === 1;
}

// Expires up to `batchSize` reservations whose time is up, oldest first. SKIP LOCKED lets several
// workers sweep at once without waiting on each other or expiring a reservation twice.
export async function expireDue(tx: Executor, batchSize: number): Promise<number> {
  const result = await tx.execute<{ expiredCount: number }>(sql`
    with due as (
      select id from point_reservations
       where status = 'reserved' and expires_at < now()
       order by expires_at
       limit ${batchSize}
       for update skip locked
    ), expired as (
      update point_reservations r
         set status = 'expired', settled_at = now()
        from due
       where r.id = due.id and r.status = 'reserved'
      returning r.account_id, r.environment, r.reserved_points
    ), totals as (
      select account_id, environment, sum(reserved_points)::bigint as points
        from expired group by account_id, environment
    ), balance as (
      update point_balances b
         set reserved_points = b.reserved_points - totals.points, updated_at = now()
        from totals
       where b.account_id = totals.account_id and b.environment = totals.environment
      returning 1
    )
    select (select count(*) from expired)::int as "expiredCount",
           (select count(*) from balance)::int as "balanceCount"`);
  return result.rows[0]?.expiredCount ?? 0;
}

export async function grant(
  tx: Executor,
  input: Scope & { points: number; ledgerEntryId: string; memo: string | null },
): Promise<BalanceRow | null> {
  const result = await tx.execute<BalanceRow>(sql`
    with balance as (
      update point_balances
         set posted_points = posted_points + ${input.points}, updated_at = now()
       where account_id = ${input.accountId} and environment = ${input.environment}
      returning account_id, environment, posted_points, reserved_points
    ), entry as (
      insert into point_ledger_entries
        (id, account_id, environment, kind, amount_points, balance_after_points, memo)
      select ${input.ledgerEntryId}, account_id, environment, 'grant', ${input.points},
             posted_points, ${input.memo}
        from balance
      returning id
    )
    select posted_points as "postedPoints", reserved_points as "reservedPoints" from balance`);
  return result.rows[0] ?? null;
}

type ReservationStatus = 'reserved' | 'captured' | 'released' | 'expired';

// The status of a reservation of this balance, locked until the transaction ends so a refund
// decided on it cannot race its capture; null when there is no such reservation.
export async function lockReservationStatus(
  tx: Executor,
  key: Scope & { reservationId: string },
): Promise<{ status: ReservationStatus; operation: string } | null> {
  const result = await tx.execute<{ status: ReservationStatus; operation: string }>(sql`
    select status, operation from point_reservations
     where id = ${key.reservationId} and account_id = ${key.accountId}
       and environment = ${key.environment}
       for update`);
  return result.rows[0] ?? null;
}

// Adds a refund entry and its points, once: the entry id is derived from what is refunded, and a
// second refund with the same id changes nothing (null).
export async function refund(
  tx: Executor,
  input: Scope & { points: number; ledgerEntryId: string; memo: string; operation: string;
    documentId: string | null },
): Promise<BalanceRow | null> {
  const result = await tx.execute<BalanceRow>(sql`
    with balance as (
      select posted_points from point_balances
       where account_id = ${input.accountId} and environment = ${input.environment}
         for update
    ), entry as (
      insert into point_ledger_entries
        (id, account_id, environment, kind, amount_points, balance_after_points, memo,
         operation, document_id)
      select ${input.ledgerEntryId}, ${input.accountId}, ${input.environment}, 'refund',
             ${input.points}, posted_points + ${input.points}, ${input.memo}, ${input.operation},
             ${input.documentId}
        from balance
      on conflict (id) do nothing
      returning amount_points
    )
    update point_balances
       set posted_points = posted_points + (select amount_points from entry), updated_at = now()
     where account_id = ${input.accountId} and environment = ${input.environment}
       and exists (select 1 from entry)
    returning posted_points as "postedPoints", reserved_points as "reservedPoints"`);
  return result.rows[0] ?? null;
}

// The sum of the ledger and the open reservations of one balance, for audits and tests.
export async function auditBalance(tx: Executor, key: Scope) {
  const result = await tx.execute<{ ledgerPoints: number; openReservedPoints: number }>(sql`
    select
      (select coalesce(sum(amount_points), 0)::bigint from point_ledger_entries
        where account_id = ${key.accountId} and environment = ${key.environment})
        as "ledgerPoints",
      (select coalesce(sum(reserved_points), 0)::bigint from point_reservations
        where account_id = ${key.accountId} and environment = ${key.environment}
          and status = 'reserved') as "openReservedPoints"`);
  return result.rows[0]!;
}

export type ReserveItem = Scope & { reservationId: string; operation: string; points: number;
  requestId: string | null };
type ReserveManyRow = { reservationId: string; accepted: boolean; postedPoints: number | null };

// The first half of every batched balance statement (reserveMany, debitMany). It locks the
// batch's balances in key order, so concurrent batches from any process queue behind each other
// instead of deadlocking, then takes each balance's items in batch order and accepts each whose
// required points the points still available cover, exactly as running them one by one would.
// It follows a CTE `request` (id, account_id, environment, points, required_points, position)
// and yields `locked` (the balances before the batch) and `walk`: per item whether it was
// accepted, and spent_points, what its balance's accepted items took so far, its own included.
const LOCK_AND_WALK_BALANCES = `
      locked as (
        select b.account_id, b.environment, b.posted_points, b.reserved_points
          from point_balances b
         where (b.account_id, b.environment) in (select account_id, environment from request)
         order by b.account_id, b.environment
           for update
      ), ranked as (
        select r.*, row_number() over (partition by r.account_id, r.environment
                                       order by r.position) as turn
          from request r
      ), walk (account_id, environment, turn, id, accepted, available_points, spent_points) as (
        select account_id, environment, 0::bigint, null::text, false,
               posted_points - reserved_points, 0::bigint
          from locked
        union all
        select w.account_id, w.environment, w.turn + 1, r.id,
               r.required_points <= w.available_points,
               case when r.required_points <= w.available_points
                    then w.available_points - r.points else w.available_points end,
               case when r.required_points <= w.available_points
                    then w.spent_points + r.points else w.spent_points end
          from walk w
          join ranked r on r.account_id = w.account_id and r.environment = w.environment
                       and r.turn = w.turn + 1
      )`;

const RESERVE_MANY_SQL = `
      with recursive request as (
        select r.*, r.points as required_points
          from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $7::text[])
          with ordinality as r(id, account_id, environment, operation, points, request_id,
                               position)
      ), ${LOCK_AND_WALK_BALANCES}, accepted as (
        select r.* from ranked r join walk w on w.id = r.id where w.accepted
      ), totals as (
        select account_id, environment, sum(points)::bigint as points
          from accepted group by account_id, environment
      ), updated as (
        update point_balances b
           set reserved_points = b.reserved_points + totals.points, updated_at = now()
          from totals
         where b.account_id = totals.account_id and b.environment = totals.environment
        returning b.account_id
      ), inserted as (
        insert into point_reservations
          (id, account_id, environment, operation, reserved_points, expires_at, request_id)
        select id, account_id, environment, operation, points,
               now() + $6::bigint * interval '1 millisecond', request_id
          from accepted
        returning id
      )
      select r.id as "reservationId", (i.id is not null) as "accepted",
             l.posted_points as "postedPoints"
        from request r
        left join inserted i on i.id = r.id
        left join locked l on l.account_id = r.account_id and l.environment = r.environment
       order by r.position`;

// Reserves for many requests in one statement, each only when the available balance covers it
// (LOCK_AND_WALK_BALANCES); a refused item still gets the posted balance, so the caller can tell
// 402 from 409.
export async function reserveMany(
  pool: pg.Pool,
  items: readonly ReserveItem[],
  ttlMs: number,
  statementName?: string,
): Promise<ReserveManyRow[]> {
  const result = await pool.query<ReserveManyRow>({
    name: statementName,
    text: RESERVE_MANY_SQL,
    values: [
      items.map((item) => item.reservationId),
      items.map((item) => item.accountId),
      items.map((item) => item.environment),
      items.map((item) => item.operation),
      items.map((item) => item.points),
      ttlMs,
      items.map((item) => item.requestId),
    ],
  });
  return result.rows;
}

export type CaptureItem = { reservationId: string; capturedPoints: number; ledgerEntryId: string };
type CaptureManyRow = SettledRow & { reservationId: string };

const CAPTURE_MANY_SQL = `
      with request as (
        select * from unnest($1::text[], $2::bigint[], $3::text[])
          with ordinality as r(reservation_id, captured_points, ledger_entry_id, position)
      ), locked as (
        select b.account_id, b.environment
          from point_balances b
         where (b.account_id, b.environment) in (
                 select p.account_id, p.environment from point_reservations p
                   join request r on r.reservation_id = p.id)
         order by b.account_id, b.environment
           for update
      ), settled as (
        update point_reservations p
           set status = 'captured', captured_points = r.captured_points, settled_at = now()
          from request r
         -- coalesce keeps the planner off the open-reservations index: its predicate would
         -- match a bare status test, and under load that index is mostly entries of
         -- reservations already settled (a bitmap scan of thousands of rows per batch).
         -- Found by primary key instead, one probe per reservation.
         where p.id = r.reservation_id and coalesce(p.status, '') = 'reserved'
           and p.reserved_points >= r.captured_points
           and (select count(*) from locked) >= 0
        returning p.id, p.account_id, p.environment, p.operation, p.reserved_points,
                  p.request_id, r.captured_points, r.ledger_entry_id, r.position
      ), totals as (
        select account_id, environment, sum(captured_points)::bigint as captured_points,
               sum(reserved_points)::bigint as reserved_points
          from settled group by account_id, environment
      ), balance as (
        update point_balances b
           set posted_points = b.posted_points - totals.captured_points,
               reserved_points = b.reserved_points - totals.reserved_points,
               updated_at = now()
          from totals
         where b.account_id = totals.account_id and b.environment = totals.environment
        returning b.account_id, b.environment, b.posted_points, b.reserved_points
      ), ordered as (
        select s.*, bal.posted_points as final_posted_points,
               bal.reserved_points as final_reserved_points,
               coalesce(sum(s.captured_points) over (
                 partition by s.account_id, s.environment order by s.position
                 rows between 1 following and unbounded following), 0) as later_captured_points
          from settled s
          join balance bal on bal.account_id = s.account_id and bal.environment = s.environment
      ), entry as (
        insert into point_ledger_entries
          (id, account_id, environment, kind, amount_points, balance_after_points, reservation_id,
           request_id)
        select ledger_entry_id, account_id, environment, 'capture', -captured_points,
               final_posted_points + later_captured_points, id, request_id
          from ordered
         where captured_points > 0
        returning reservation_id
      )
      select o.id as "reservationId", o.account_id as "accountId",
             o.environment as "environment", o.reserved_points as "reservationPoints",
             o.operation as "operation",
             o.final_posted_points + o.later_captured_points as "postedPoints",
             o.final_reserved_points as "reservedPoints",
             (select count(*) from entry e where e.reservation_id = o.id)::int
               as "ledgerEntryCount"
        from ordered o`;

// Captures `capturedPoints` of each reservation that is still open and returns the rest to the
// available balance, writing a ledger entry for each capture above 0, in one statement. A
// reservation already settled gets no row, which is how capture stays at-most-once.
// Balances are locked in key order first, as in reserveMany (the count makes the update wait
// until every lock is held; an EXISTS would stop at the first). Each ledger entry records the
// balance after it, in the order of the batch.
export async function captureMany(
  pool: pg.Pool,
  items: readonly CaptureItem[],
  statementName?: string,
): Promise<CaptureManyRow[]> {
  const result = await pool.query<CaptureManyRow>({
    name: statementName,
    text: CAPTURE_MANY_SQL,
    values: [
      items.map((item) => item.reservationId),
      items.map((item) => item.capturedPoints),
      items.map((item) => item.ledgerEntryId),
    ],
  });
  return result.rows;
}

// `requiredPoints` (at least `points`) must be available for the debit to happen: the worst
// case the call was priced at, of which `points` were delivered.
export type DebitItem = Scope & {
  ledgerEntryId: string;
  operation: string;
  points: number;
  requiredPoints: number;
  // What the charge belongs to (point_ledger_entries): the request's Trace-Id, and the one
  // document it pays for when it pays for exactly one.
  requestId: string | null;
  documentId: string | null;
};
type DebitManyRow = { ledgerEntryId: string; accepted: boolean; postedPoints: number | null };

const DEBIT_MANY_SQL = `
      with recursive request as (
        select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[],
                             $6::bigint[], $7::text[], $8::text[])
          with ordinality as r(id, account_id, environment, operation, points,
                               required_points, request_id, document_id, position)
      ), ${LOCK_AND_WALK_BALANCES}, accepted as (
        select w.id, w.account_id, w.environment, r.points, r.operation, r.request_id,
               r.document_id, l.posted_points - w.spent_points as balance_after_points
          from walk w
          join ranked r on r.id = w.id
          join locked l on l.account_id = w.account_id and l.environment = w.environment
         where w.accepted
      ), totals as (
        select account_id, environment, sum(points)::bigint as points
          from accepted group by account_id, environment
      ), updated as (
        update point_balances b
           set posted_points = b.posted_points - totals.points, updated_at = now()
          from totals
         where b.account_id = totals.account_id and b.environment = totals.environment
        returning b.account_id
      ), entries as (
        insert into point_ledger_entries
          (id, account_id, environment, kind, amount_points, balance_after_points, memo,
           operation, request_id, document_id)
        select id, account_id, environment, 'charge', -points, balance_after_points, operation,
               operation, request_id, document_id
          from accepted
        returning id
      )
      select r.id as "ledgerEntryId", (e.id is not null) as "accepted",
             l.posted_points - w.spent_points as "postedPoints"
        from request r
        left join entries e on e.id = r.id
        left join walk w on w.id = r.id
        left join locked l on l.account_id = r.account_id and l.environment = r.environment
       order by r.position`;

// DEBIT_MANY_SQL's parameters, one array per column.
function debitValues(items: readonly DebitItem[]): unknown[] {
  return [
    items.map((item) => item.ledgerEntryId),
    items.map((item) => item.accountId),
    items.map((item) => item.environment),
    items.map((item) => item.operation),
    items.map((item) => item.points),
    items.map((item) => item.requiredPoints),
    items.map((item) => item.requestId),
    items.map((item) => item.documentId),
  ];
}

// Charges many requests for work already done, in one statement and without reservations: each
// item is debited only when the points available (posted − reserved) cover its required points,
// and writes a 'charge' ledger entry with the balance after it (LOCK_AND_WALK_BALANCES). A
// refused item gets the posted balance it met (null without a balance), so the caller can tell
// 402 from 409.
export async function debitMany(
  pool: pg.Pool,
  items: readonly DebitItem[],
  statementName?: string,
): Promise<DebitManyRow[]> {
  const result = await pool.query<DebitManyRow>({
    name: statementName,
    text: DEBIT_MANY_SQL,
    values: debitValues(items),
  });
  return result.rows;
}

// debitMany inside the caller's transaction, for work recorded in the same transaction as its
// charge: the debit commits exactly when the work does. The balances stay locked until then.
export async function debitManyIn(tx: Executor, items: readonly DebitItem[]):
  Promise<DebitManyRow[]> {
  if (items.length === 0) return [];
  const result = await executePrepared<DebitManyRow>(tx,
    numberedSql(DEBIT_MANY_SQL, debitValues(items)));
  return result.rows;
}
