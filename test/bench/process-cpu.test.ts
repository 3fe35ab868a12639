import { describe, expect, it } from 'vitest';
import {
  postgresCpuSeconds,
  postgresCpuSecondsOf,
  type ProcessTimes,
} from '../../bench/process-cpu.ts';

// What a benchmarked document cost PostgreSQL is the difference of two readings of its CPU
// time; a backend or autovacuum worker that exits between them must not take its time away.

const postmaster = (reapedChildrenSeconds: number): ProcessTimes => ({ pid: 100, parentPid: 1,
  command: 'postgres', ownSeconds: 2, reapedChildrenSeconds });
const child = (pid: number, ownSeconds: number, command = 'postgres'): ProcessTimes => ({
  pid, parentPid: 100, command, ownSeconds, reapedChildrenSeconds: 7 });

describe('PostgreSQL CPU time', () => {
  it('adds every live process and the children the postmaster reaped, not a child\'s', () => {
    expect(postgresCpuSecondsOf([postmaster(3), child(101, 5), child(102, 1, 'postgres: walwriter'),
      { pid: 200, parentPid: 1, command: 'node', ownSeconds: 50, reapedChildrenSeconds: 9 }]))
      .toBe(2 + 3 + 5 + 1);
  });

  it('never goes back when a worker exits between two readings', () => {
    const before = postgresCpuSecondsOf([postmaster(3), child(101, 5), child(102, 4)])!;
    // 102 worked 0.5 s more, exited, and was reaped: its time is now the postmaster's.
    const after = postgresCpuSecondsOf([postmaster(3 + 4.5), child(101, 6)])!;
    expect(after - before).toBeCloseTo(1 + 0.5);
  });

  it('is null where no PostgreSQL process runs', () => {
    expect(postgresCpuSecondsOf([{ pid: 1, parentPid: 0, command: 'init', ownSeconds: 1,
      reapedChildrenSeconds: 1 }])).toBeNull();
  });

  // Where the test database runs on this machine, as it does in CI.
  it.runIf(postgresCpuSeconds() !== null)('reads this machine\'s PostgreSQL, whose time only ' +
    'grows', () => {
    const first = postgresCpuSeconds()!;
    expect(first).toBeGreaterThan(0);
    expect(postgresCpuSeconds()!).toBeGreaterThanOrEqual(first);
  });
});
