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

function cpuSecondsOf(fields: string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

// User plus system CPU seconds of a process, or null where /proc is not available.
export function processCpuSeconds(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  const stat = readStat(pid);
  return stat === null ? null : cpuSecondsOf(stat.fields);
}

// User plus system CPU seconds of every PostgreSQL process on this machine (the postmaster,
// its backends and its background workers), or null where /proc is not available or none runs
// here. A backend that exits between two readings takes its time with it; the server's pool
// keeps its connections, so over a scenario that loses little.
export function postgresCpuSeconds(): number | null {
  if (!existsSync('/proc')) return null;
  let total = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat === null || !(stat.command === 'postgres' || stat.command.startsWith('postgres:'))) {
      continue;
    }
    found = true;
    total += cpuSecondsOf(stat.fields);
  }
  return found ? total : null;
}

// CPU seconds of this process (the benchmark and its load generator).
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1_000_000;
}
