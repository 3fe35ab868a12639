// The start-up phases of this process. Modules that end a phase (opening the database, the
// migrations, the job queue, listening) leave a performance mark named `etax:<phase>` with the
// resident set size as its detail; `etax serve` logs them in its `started` line, which is how
// `npm run bench:startup` (bench/startup.ts) and operators see where a slow start went.

const PREFIX = 'etax:';
const BYTES_PER_MB = 1_048_576;

export type StartupPhases = {
  // Milliseconds from process start to the end of each phase, in the order they ended.
  startupMs: Record<string, number>;
  // Resident set size at the end of each phase, in MB.
  rssMb: Record<string, number>;
};

export function markPhase(name: string): void {
  performance.mark(`${PREFIX}${name}`, { detail: process.memoryUsage.rss() });
}

// Reads and clears the marks, so a later reading reports only what happened since.
export function takeStartupPhases(): StartupPhases {
  const phases: StartupPhases = { startupMs: {}, rssMb: {} };
  for (const mark of performance.getEntriesByType('mark') as PerformanceMark[]) {
    if (!mark.name.startsWith(PREFIX)) continue;
    const name = mark.name.slice(PREFIX.length);
    phases.startupMs[name] = Math.round(mark.startTime);
    if (typeof mark.detail === 'number') {
      phases.rssMb[name] = Math.round(mark.detail / BYTES_PER_MB);
    }
    performance.clearMarks(mark.name);
  }
  return phases;
}
