import { LRUCache } from 'lru-cache';
import type { Scope } from '../platform/scope.ts';
import type { UsageRow } from '../platform/points/ledger-reads.ts';

// Home's usage chart reads the ledger of the last days (docs/dashboard.md § Pages). The ledger
// only grows, and an entry's time is when it was written: a day over and done no longer
// changes. So the usage of the days before yesterday is aggregated once per account and
// environment and kept; today and yesterday are read every time. Yesterday stays live so that
// a transaction begun before midnight and committed after it is still counted.
//
// One cache per dashboard (createDashboard makes it), bounded, one entry per account and
// environment: the entry of a window that has moved on (a new day) is replaced, not kept beside.

const LIVE_DAYS = 2;
const SCOPES_KEPT = 2_000;

type Reader = { usageSince(scope: Scope, fromDate: string, untilDate?: string):
  Promise<UsageRow[]> };

type Settled = { from: string; until: string; rows: UsageRow[] };

export function createUsageCache(points: Reader, max = SCOPES_KEPT) {
  const settled = new LRUCache<string, Settled>({ max });

  // The usage of `days` (oldest first, Seoul dates), the settled days from the cache.
  async function usageOf(scope: Scope, days: readonly string[]): Promise<UsageRow[]> {
    const from = days[0]!;
    const until = days[Math.max(days.length - LIVE_DAYS, 0)]!;
    const key = `${scope.accountId}:${scope.environment}`;
    let entry = settled.get(key);
    if (entry === undefined || entry.from !== from || entry.until !== until) {
      entry = { from, until, rows: await points.usageSince(scope, from, until) };
      settled.set(key, entry);
    }
    return [...entry.rows, ...await points.usageSince(scope, until)];
  }

  return { usageOf, get size() { return settled.size; } };
}

export type UsageCache = ReturnType<typeof createUsageCache>;
