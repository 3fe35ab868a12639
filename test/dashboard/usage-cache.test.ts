import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/platform/scope.ts';
import { createUsageCache } from '../../src/dashboard/usage-cache.ts';

// Home's usage cache: the settled days read once per account and environment, today and
// yesterday on every request; a moved window replaces its entry; the cache is bounded and owned
// by whoever made it (no state shared between two dashboards).

const DAYS = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-28'];

function reader() {
  const reads: string[] = [];
  return { reads, usageSince: async (scope: Scope, from: string, until?: string) => {
    reads.push(`${scope.accountId}:${scope.environment}:${from}..${until ?? ''}`);
    return [{ day: from, operation: 'x', points: until === undefined ? 1 : 10 }] as never[];
  } };
}

const scope = (accountId: string, environment: 'test' | 'live' = 'test') =>
  ({ accountId, environment }) as Scope;

describe('usage cache', () => {
  it('reads the settled days once per account and environment, the live days every time',
    async () => {
      const points = reader();
      const cache = createUsageCache(points);
      await cache.usageOf(scope('acc_a'), DAYS);
      await cache.usageOf(scope('acc_a'), DAYS);
      await cache.usageOf(scope('acc_a', 'live'), DAYS);
      await cache.usageOf(scope('acc_b'), DAYS);
      expect(points.reads).toEqual([
        'acc_a:test:2026-11-25..2026-11-27', 'acc_a:test:2026-11-27..',
        'acc_a:test:2026-11-27..',
        'acc_a:live:2026-11-25..2026-11-27', 'acc_a:live:2026-11-27..',
        'acc_b:test:2026-11-25..2026-11-27', 'acc_b:test:2026-11-27..',
      ]);
      expect(cache.size).toBe(3);
    });

  it('replaces an entry when the window moves, and keeps at most `max` entries', async () => {
    const points = reader();
    const cache = createUsageCache(points, 2);
    await cache.usageOf(scope('acc_a'), DAYS);
    await cache.usageOf(scope('acc_a'), [...DAYS.slice(1), '2026-11-29']);
    expect(points.reads.filter((read) => !read.endsWith('..'))).toEqual([
      'acc_a:test:2026-11-25..2026-11-27', 'acc_a:test:2026-11-26..2026-11-28']);
    expect(cache.size).toBe(1);
    await cache.usageOf(scope('acc_b'), DAYS);
    await cache.usageOf(scope('acc_c'), DAYS);
    expect(cache.size).toBe(2);
    // Another dashboard's cache starts empty: nothing is kept at module level.
    const other = reader();
    await createUsageCache(other).usageOf(scope('acc_a'), DAYS);
    expect(other.reads).toHaveLength(2);
  });
});
