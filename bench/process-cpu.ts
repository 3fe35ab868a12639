import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

// CPU time of processes on this machine, from /proc: what a benchmarked request or document
// cost the server, the database beside it and the load generator.

// Clock ticks per second of /proc/<pid>/stat times; 100 on every common Linux.
const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// The command name and the fields after it of /proc/<pid>/stat; the name is in parentheses and
// may contain spaces.
function readStat(pid: number | string): { command: string; fields: string[] } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(')');
  return { command: stat.slice(stat.indexOf('(') + 1, close),
    fields: stat.slice(close + 2).split(' ') };
}

// Where, among those fields, a user time is followed by its system time: the process's own
// (utime, stime) and its reaped children's (cutime, cstime).
const OWN_TIMES = 11;
const REAPED_CHILDREN_TIMES = 13;

function cpuSecondsOf(fields: string[], times = OWN_TIMES): number {
  return (Number(fields[times]) + Number(fields[times + 1])) / CLOCK_TICKS_PER_SECOND;
}

// User plus system CPU seconds of a process, or null where /proc is not available.
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const stat = readStat(pid);
  return stat === null ? null : cpuSecondsOf(stat.fields);
}

export type ProcessTimes = { pid: number; parentPid: number; command: string;
  // Its own user plus system CPU seconds, and those of its children it has waited for.
  ownSeconds: number; reapedChildrenSeconds: number };

function processTimesOf(pid: string): ProcessTimes | null {
  const stat = readStat(pid);
  if (stat === null) return null;
  return { pid: Number(pid), parentPid: Number(stat.fields[1]), command: stat.command,
    ownSeconds: cpuSecondsOf(stat.fields),
    reapedChildrenSeconds: cpuSecondsOf(stat.fields, REAPED_CHILDREN_TIMES) };
}

const isPostgres = (command: string) => command === 'postgres' || command.startsWith('postgres:');

// The CPU seconds PostgreSQL has used so far, from the processes running now: every process's
// own time, and for the postmaster (a PostgreSQL process whose parent is not one) the time of
// the children it has reaped. A backend or autovacuum worker that exits between two readings
// moves its time into the postmaster's, so the total never goes back: summing only the live
// processes lost an exited worker's time, and could make a scenario's share negative.
export function postgresCpuSecondsOf(processes: readonly ProcessTimes[]): number | null {
  const postgres = processes.filter((times) => isPostgres(times.command));
  if (postgres.length === 0) return null;
  const pids = new Set(postgres.map((times) => times.pid));
  return postgres.reduce((total, times) => total + times.ownSeconds +
    (pids.has(times.parentPid) ? 0 : times.reapedChildrenSeconds), 0);
}

// User plus system CPU seconds of PostgreSQL on this machine (the postmaster, its backends and
// its background workers, autovacuum included, those that have exited too), or null where /proc
// is not available or none runs here.
export function postgresCpuSeconds(): number | null {
  if (!existsSync('/proc')) return null;
  return postgresCpuSecondsOf(readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => processTimesOf(entry) ?? []));
}

// CPU seconds of this process (the benchmark and its load generator).
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1_000_000;
}
