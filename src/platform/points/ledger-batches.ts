import assert from 'node:assert/strict';
import type pg from 'pg';
import type { Db } from '../db/connect.ts';
import { retryingDeadlocks } from '../db/deadlock.ts';
import { createBatcher } from '../batcher.ts';
import * as store from './store.ts';

// Reservations, captures and debits (every paid request's reserve → work → capture, or check →
// work → debit) share one statement per batch (batcher.ts), so a busy server pays one round trip
// and one commit for many requests. The statements lock balances in key order, so batches from many
// processes queue behind each other instead of deadlocking; the expiry sweep does not, so a
// deadlock (the whole statement rolled back) is retried.

const BATCHES_IN_FLIGHT_MAX = 2;
const ITEMS_PER_BATCH_MAX = 200;
// A deadlock rolls the whole batch statement back; it is retried at once.
const DEADLOCK_RETRY = { attemptsMax: 5, delayMs: 0 };

type ReserveResult = { reservationId: string | null; postedPoints: number | null };

type DebitResult = { accepted: boolean; postedPoints: number | null };

export type LedgerBatches = {
  reserve(item: store.ReserveItem): Promise<ReserveResult>;
  capture(item: store.CaptureItem): Promise<store.SettledRow | null>;
  debit(item: store.DebitItem): Promise<DebitResult>;
};

type LedgerBatchesOptions = {
  db: Db;
  // Reservations commit without waiting for the WAL flush (Database.relaxedPool says why).
  relaxedPool: pg.Pool;
  reservationTtlMs: number;
  preparedStatements: boolean;
};

export function createLedgerBatches(options: LedgerBatchesOptions): LedgerBatches {
  const { db, reservationTtlMs } = options;
  // Named statements are planned once per connection; the embedded database cannot use them
  // (store.findBalances says why).
  const named = (name: string) => (options.preparedStatements ? name : undefined);

  const reserve = createBatcher<store.ReserveItem, ReserveResult>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: ITEMS_PER_BATCH_MAX,
    async run(items) {
      const rows = await retryingDeadlocks(() =>
        store.reserveMany(options.relaxedPool, items, reservationTtlMs,
          named('points_reserve_many')), DEADLOCK_RETRY);
      assert.equal(rows.length, items.length);
      return rows.map((row, index) => {
        assert.equal(row.reservationId, items[index]!.reservationId);
        return {
          reservationId: row.accepted ? row.reservationId : null,
          postedPoints: row.postedPoints,
        };
      });
    },
  });

  const capture = createBatcher<store.CaptureItem, store.SettledRow | null>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: ITEMS_PER_BATCH_MAX,
    async run(items) {
      // A reservation captured twice in one batch: the first capture settles it and the later
      // ones find it settled, as they would one after the other.
      const firstCaptures = new Map<string, store.CaptureItem>();
      for (const item of items) {
        if (!firstCaptures.has(item.reservationId)) firstCaptures.set(item.reservationId, item);
      }
      const unique = [...firstCaptures.values()];
      // Planned for each batch, not named: a plan made once per connection, while the
      // reservations table was small, would scan it whole for ever after.
      const rows = await retryingDeadlocks(() =>
        store.captureMany(db.$client, unique), DEADLOCK_RETRY);
      assert(rows.length <= unique.length);
      const byReservation = new Map(rows.map((row) => [row.reservationId, row]));
      return items.map((item) => (firstCaptures.get(item.reservationId) === item
        ? byReservation.get(item.reservationId) ?? null
        : null));
    },
  });

  const debit = createBatcher<store.DebitItem, DebitResult>({
    inFlightMax: BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: ITEMS_PER_BATCH_MAX,
    async run(items) {
      const rows = await retryingDeadlocks(() =>
        store.debitMany(db.$client, items, named('points_debit_many')), DEADLOCK_RETRY);
      assert.equal(rows.length, items.length);
      return rows.map((row, index) => {
        assert.equal(row.ledgerEntryId, items[index]!.ledgerEntryId);
        return { accepted: row.accepted, postedPoints: row.postedPoints };
      });
    },
  });

  return { reserve, capture, debit };
}
