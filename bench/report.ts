// Formats benchmark results as the sections of bench/RESULTS.md: the table of every scenario's
// median run, the verdict on each goal, and the ratios to the baseline and to the peer.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { SteadyRateFigures } from './open-loop.ts';
import type { Scenario } from './scenarios.ts';
import { markedSections } from './results-file.ts';

export type DatabaseMode = 'postgres' | 'embedded';
export type RunFigures = {
  requestsPerSecond: number;
  // CPU time the server process spent per request (Linux only): unlike req/s, it barely moves
  // when other work on the machine competes for the cores.
  serverCpuMicrosecondsPerRequest: number | null;
  p50Ms: number;
  p97_5Ms: number;
  p99Ms: number;
  non2xxCount: number;
  errorCount: number;
  timeoutCount: number;
};
// What the workers did with the documents a scenario made, over all its timed runs.
export type DocumentProcessing = {
  // Documents the scenario made (accepted) per second over the same window.
  acceptedPerSecond: number;
  signedPerSecond: number;
  transmittedPerSecond: number;
  // Accepted but not yet signed when the last run ended.
  pendingAtEnd: number;
  // Accepted but not yet through the whole pipeline (signed or approved, then transmitted, or
  // ended) when the last run ended: a backlog that grows run after run means the workers do not
  // keep up, and it is what the goal judges.
  unfinishedAtEnd: number;
};

// What a document cost from its request to the end of its processing, over the whole scenario
// (bench/run.ts, documentCosts).
export type DocumentCosts = {
  documents: number;
  // Rows PostgreSQL inserted, updated or deleted (pg_stat_user_tables, every table).
  rowWritesPerDocument: number;
  // CPU time of the etax processes (server and workers), not PostgreSQL's.
  cpuMsPerDocument: number;
  // CPU time of PostgreSQL's processes, when it runs on this machine; else null.
  databaseCpuMsPerDocument: number | null;
  // CPU time of the benchmark's own process, which sends the requests.
  loadGeneratorCpuMsPerDocument: number;
};
// The runs at a scenario's steady arrival rate (bench/open-loop.ts), with what the workers did
// meanwhile.
export type SteadyRateResult = { median: SteadyRateFigures; runs: SteadyRateFigures[];
  processing?: DocumentProcessing | undefined };
export type ScenarioResult = { scenario: Scenario; median: RunFigures; runs: RunFigures[];
  processing?: DocumentProcessing | undefined; steady?: SteadyRateResult | undefined;
  costs?: DocumentCosts | undefined };
export type ReportOptions = { keys: number; connections: number; pipelining: number;
  warmup: number; runs: number; duration: number; workerProcesses: number;
  // 1 when the servers reached PostgreSQL through PgBouncer (bench/run.ts --pgbouncer).
  pgbouncer?: number };

// Where the background jobs ran: in the measured server, or in processes of their own.
function workersLine(workerProcesses: number): string {
  return workerProcesses === 0
    ? '- Workers: in the server process (one `etax serve`); server CPU counts both'
    : `- Workers: ${workerProcesses} separate \`etax serve\` process` +
      `${workerProcesses === 1 ? '' : 'es'} (WORKERS_ENABLED=true) sent no requests; the ` +
      'measured server is API-only (WORKERS_ENABLED=false) and its CPU column counts it alone';
}

function failedResponseCount(result: ScenarioResult): number {
  return result.runs.reduce(
    (sum, run) => sum + run.non2xxCount + run.errorCount + run.timeoutCount,
    0,
  ) + (result.steady?.runs ?? []).reduce((sum, run) => sum + run.non2xxCount + run.errorCount, 0);
}

function formatTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | req/s | p50 ms | p97.5 ms | p99 ms | non-2xx (all runs) ' +
    '| errors + timeouts (all runs) | server CPU µs/req | runs (req/s) |',
    '|---|--:|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const { scenario, median, runs } of results) {
    const allRuns = runs.map((run) => run.requestsPerSecond.toFixed(0)).join(' / ');
    const nonSuccess = runs.reduce((sum, run) => sum + run.non2xxCount, 0);
    const failures = runs.reduce((sum, run) => sum + run.errorCount + run.timeoutCount, 0);
    const cpu = median.serverCpuMicrosecondsPerRequest?.toFixed(0) ?? 'n/a';
    lines.push(
      `| ${scenario.name} | ${median.requestsPerSecond.toFixed(0)} | ${median.p50Ms} | ` +
      `${median.p97_5Ms} | ${median.p99Ms} | ${nonSuccess} | ${failures} | ${cpu} | ${allRuns} |`,
    );
  }
  return lines.join('\n');
}

// The scenarios measured at a steady arrival rate: the run with the median p99, latency counted
// from when each request was due.
function formatSteadyTable(results: ScenarioResult[]): string[] {
  const steady = results.filter((result) => result.steady !== undefined);
  if (steady.length === 0) return [];
  const lines = [
    '',
    'At a steady arrival rate (bench/open-loop.ts: request i is sent at i ÷ rate seconds, ' +
    'latency counted from then; median run by p99):',
    '',
    '| scenario | offered req/s | answered req/s | p50 ms | p97.5 ms | p99 ms | max ms ' +
    '| p99 of every run (ms) |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const { scenario, steady: result } of steady) {
    const { median, runs } = result!;
    lines.push(`| ${scenario.name} | ${median.offeredPerSecond} | ` +
      `${median.answeredPerSecond.toFixed(0)} | ${median.p50Ms} | ${median.p97_5Ms} | ` +
      `${median.p99Ms} | ${median.maxMs} | ${runs.map((run) => run.p99Ms).join(' / ')} |`);
  }
  return lines;
}

// One line per latency goal: the median run's p50 and p99 against the scenario's p50MsMax and
// p99MsMax, and p95MsMax judged on p97.5 (autocannon reports no p95; p97.5 is at least p95, so
// a met goal is met). With a steady rate, they are judged on the runs at that rate.
function latencyGoalLines(scenario: Scenario, closedLoop: RunFigures,
  steady: SteadyRateResult | undefined): string[] {
  const median = steady?.median ?? closedLoop;
  const where = steady ? ` at a steady ${steady.median.offeredPerSecond} req/s` : '';
  const goals: Array<[string, number, number | undefined]> = [
    ['p50', median.p50Ms, scenario.p50MsMax],
    ['p99', median.p99Ms, scenario.p99MsMax],
    ['p95 (judged on p97.5)', median.p97_5Ms, scenario.p95MsMax],
  ];
  // --steady-rate measured another rate than the goal's: its figures say nothing of the goal.
  const atGoalRate = steady === undefined ||
    steady.median.offeredPerSecond === scenario.steadyRatePerSecond;
  return goals.flatMap(([label, actual, goal]) => (goal === undefined ? [] : [
    `- ${scenario.name}: ${label}${where} ${actual} ms (goal ≤ ${goal} ms` +
    (atGoalRate ? `): ${actual <= goal ? 'met' : '**NOT met**'}.`
      : ` at ${scenario.steadyRatePerSecond} req/s): not judged at this rate.`)]));
}

// The verdicts on the latency and throughput goals. The latency at a steady rate is not measured
// when the server answered fewer requests than that with every connection busy.
function formatLatencyGoals(results: ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const { scenario, median: closedLoop, steady } of results) {
    if (scenario.steadyRatePerSecond !== undefined && steady === undefined) {
      // Not run: the server answers fewer requests than the rate asks for.
      lines.push(`- ${scenario.name}: latency at its steady rate not measured, since it ` +
        `answered only ${closedLoop.requestsPerSecond.toFixed(0)} req/s with every connection ` +
        'kept busy: **NOT met**.');
    } else {
      lines.push(...latencyGoalLines(scenario, closedLoop, steady));
    }
    if (scenario.requestsPerSecondMin !== undefined) {
      const actual = closedLoop.requestsPerSecond;
      const verdict = actual >= scenario.requestsPerSecondMin ? 'met' : '**NOT met**';
      const how = steady ? ' with every connection kept busy' : '';
      lines.push(`- ${scenario.name}: ${actual.toFixed(0)} req/s${how} ` +
        `(goal ≥ ${scenario.requestsPerSecondMin}): ${verdict}.`);
    }
  }
  return lines;
}

// Whether the backlog at the end is within the scenario's goal, when it has one.
function backlogVerdict(scenario: Scenario, figures: DocumentProcessing): string {
  if (scenario.backlogSecondsMax === undefined) return '';
  const allowed = Math.round(figures.acceptedPerSecond * scenario.backlogSecondsMax);
  const verdict = figures.unfinishedAtEnd <= allowed ? 'met' : '**NOT met**';
  return ` (goal: the workers keep up, at most ${scenario.backlogSecondsMax} s of what was ` +
    `accepted left unfinished, ${allowed}): ${verdict}`;
}

// The CPU a document cost PostgreSQL and the load generator besides etax, and the rate at which
// all three together would keep every core of this machine busy: the most documents a second
// the machine can take at these costs, whatever the software waits on.
function formatOtherCpu(costs: DocumentCosts): string {
  if (costs.databaseCpuMsPerDocument === null) return '';
  const totalMs = costs.cpuMsPerDocument + costs.databaseCpuMsPerDocument +
    costs.loadGeneratorCpuMsPerDocument;
  const cores = os.availableParallelism();
  return `, ${costs.databaseCpuMsPerDocument.toFixed(2)} ms of PostgreSQL's and ` +
    `${costs.loadGeneratorCpuMsPerDocument.toFixed(2)} ms of the load generator's; ` +
    `${totalMs.toFixed(2)} ms in all, so ${cores} cores take at most ` +
    `${Math.floor((cores * 1_000) / totalMs)} documents/s at these costs`;
}

function formatProcessing(results: ScenarioResult[], workerProcesses: number): string[] {
  const who = workerProcesses === 0 ? 'the same process\'s workers' : 'the worker processes';
  return results.flatMap(({ scenario, processing, steady, costs }) => {
    const verb = scenario.makesDocuments === 'cashReceipts' ? 'approved' : 'signed';
    const cost = costs === undefined ? [] : [`- ${scenario.name}: each of the ` +
      `${costs.documents} documents cost, from its request to the end of its processing, ` +
      `${costs.rowWritesPerDocument.toFixed(1)} row writes in PostgreSQL and ` +
      `${costs.cpuMsPerDocument.toFixed(2)} ms of etax CPU time${formatOtherCpu(costs)}.`];
    const during = [
      { figures: processing, when: 'the autocannon runs' },
      { figures: steady?.processing,
        when: `the runs at a steady ${steady?.median.offeredPerSecond} req/s` },
    ];
    return during.flatMap(({ figures, when }) => (figures === undefined ? [] : [
      `- ${scenario.name}: during ${when} ${figures.acceptedPerSecond.toFixed(0)} documents/s ` +
      `were accepted; ${who} ${verb} ${figures.signedPerSecond.toFixed(0)} and transmitted ` +
      `${figures.transmittedPerSecond.toFixed(0)} documents/s; when the last run ended ` +
      `${figures.pendingAtEnd} were waiting to be ${verb} and ${figures.unfinishedAtEnd} had ` +
      `not been transmitted yet${backlogVerdict(scenario, figures)}.`]))
      .concat(cost);
  });
}

// One line per scenario with a goal: its throughput as a share of the baseline's.
function formatGoals(results: ScenarioResult[], workerProcesses: number): string[] {
  const baseline = results.find((result) => result.scenario.baseline);
  if (!baseline) {
    return [...formatLatencyGoals(results), ...formatProcessing(results, workerProcesses)];
  }
  const lines: string[] = [];
  for (const { scenario, median } of results) {
    if (scenario.baselineFractionMin === undefined) continue;
    const fraction = median.requestsPerSecond / baseline.median.requestsPerSecond;
    const goalPercent = Math.round(scenario.baselineFractionMin * 100);
    const verdict = fraction >= scenario.baselineFractionMin ? 'met' : '**NOT met**';
    const cpu = median.serverCpuMicrosecondsPerRequest;
    const baselineCpu = baseline.median.serverCpuMicrosecondsPerRequest;
    const cpuNote = cpu && baselineCpu
      ? `; server CPU per request ${(cpu / baselineCpu).toFixed(1)}× the baseline's`
      : '';
    lines.push(
      `- ${scenario.name}: ${(fraction * 100).toFixed(1)}% of ${baseline.scenario.name}'s ` +
      `req/s (goal ≥ ${goalPercent}%): ${verdict}${cpuNote}.`,
    );
  }
  return [...lines, ...formatLatencyGoals(results), ...formatProcessing(results, workerProcesses),
    ...formatPeerGoals(results)];
}

// One line per peer scenario: how many times the peer's req/s the compared scenario answered.
function formatPeerGoals(results: ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const { scenario, median } of results) {
    if (scenario.peer === undefined) continue;
    const ours = results.find((result) => result.scenario.name === scenario.peer!.comparesWith);
    if (!ours) continue;
    const ratio = ours.median.requestsPerSecond / median.requestsPerSecond;
    const verdict = ratio >= scenario.peer.ratioMin ? 'met' : '**NOT met**';
    lines.push(`- ${ours.scenario.name}: ${ratio.toFixed(1)}× ${scenario.name}'s req/s ` +
      `(goal ≥ ${scenario.peer.ratioMin}×): ${verdict}.`);
  }
  return lines;
}

function formatSkipped(skipped: SectionInput['skipped']): string[] {
  return skipped.map(({ scenario, reason }) => `- Not run here: ${scenario.name} (${reason}).`);
}

export function formatInvalid(results: ScenarioResult[]): string[] {
  return results
    .filter((result) => failedResponseCount(result) > 0)
    .map((result) =>
      `- **INVALID: ${result.scenario.name} had ${failedResponseCount(result)} non-2xx ` +
      'responses, errors or timeouts. Its figures do not measure the API.**');
}

function machineLines(): string[] {
  const cpus = os.cpus();
  const memoryGiB = (os.totalmem() / 1024 ** 3).toFixed(1);
  return [
    `- Machine: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ` +
    `${memoryGiB} GiB memory, ${os.type()} ${os.release()}`,
    `- Node.js ${process.version}; load generator (autocannon) and server on the same machine`,
  ];
}

const MODE_TITLES: Record<DatabaseMode, string> = {
  postgres: 'PostgreSQL (DATABASE_URL)',
  embedded: 'Embedded PGlite (no DATABASE_URL)',
};

type SectionInput = {
  mode: DatabaseMode;
  results: ScenarioResult[];
  // Scenarios this mode cannot run, each with the reason.
  skipped: Array<{ scenario: Scenario; reason: string }>;
  options: ReportOptions;
  // Profiles in the store, when a scenario needed them.
  profileCount: number | null;
  // The server's autovacuum is off, so the benchmark analysed the database after each warm-up.
  analysedAfterWarmUp: boolean;
};

export function formatSection(input: SectionInput, loadAverage: number): string {
  const { mode, results, options } = input;
  const limiter = process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'in-process memory';
  return [
    `<!-- results:${mode} -->`,
    `## ${MODE_TITLES[mode]}`,
    '',
    `- Date: ${new Date().toISOString()}`,
    ...machineLines(),
    // Other work on the machine takes CPU from the server and the load generator alike.
    `- System load average (1 min) when the benchmark started: ${loadAverage.toFixed(2)}`,
    `- Database: ${MODE_TITLES[mode]}, fresh for the run, ${options.keys} accounts` +
    (input.profileCount ? `, ${input.profileCount.toLocaleString('en-US')} profiles` : '') +
    (options.pgbouncer === 1 ? '; the servers reach it through PgBouncer (transaction ' +
      'pooling, DATABASE_PREPARED_STATEMENTS=false)' : '') +
    (input.analysedAfterWarmUp ? '; its autovacuum is off, so the benchmark analyses the ' +
      'database after each warm-up, as autovacuum would have' : ''),
    `- Rate limiter: ${limiter}; the benchmarked operations' limits are lifted`,
    `- Load: ${options.connections} connections unless a scenario names its own, ` +
    `pipelining ${options.pipelining}, ` +
    `${options.warmup} s warm-up, then ${options.runs} runs of ${options.duration} s per scenario`,
    workersLine(options.workerProcesses),
    '- The table shows the median run by req/s; the last column lists every run',
    '',
    formatTable(results),
    ...formatSteadyTable(results),
    '',
    ...formatGoals(results, options.workerProcesses),
    ...formatSkipped(input.skipped),
    ...formatInvalid(results),
    `<!-- /results:${mode} -->`,
  ].join('\n');
}

export const RESULTS_HEADER = `# etax benchmarks

Generated by \`npm run bench\` (bench/run.ts); each run replaces only the section of its database
mode. Run it on an otherwise idle machine:

\`\`\`sh
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL= npm run bench   # PostgreSQL
npm run bench                                                                  # embedded
npm run bench -- --duration 5 --connections 100 --runs 1   # or BENCH_DURATION_SECONDS etc.
npm run bench -- --only businessProfiles                   # some scenarios; RESULTS.md untouched
npm run bench -- --only cashReceipts --steady-rate 500    # latency at another steady rate
\`\`\`

The server runs as a child process (\`etax serve\`, LOG_LEVEL=warn, workers on) on a fresh
database with many accounts; with \`--worker-processes N\` (\`BENCH_WORKER_PROCESSES\`) the server
is API-only and N more \`etax serve\` processes, sent no requests, work the background jobs, as
docs/operations.md recommends for production; the rate limits of the benchmarked operations are
lifted. Scenarios are listed in bench/scenarios.ts. A run with any non-2xx response is invalid.
Where PostgreSQL runs with \`autovacuum = off\` (a CI machine's), the benchmark analyses its
database after each warm-up, as autovacuum would have, since the planner picks indexes by the
statistics.
autocannon records latency in whole milliseconds (0 means under 1 ms). Server CPU µs/req is the
server process's CPU time divided by the requests answered; it is steadier than req/s when other
work competes for the cores. autocannon keeps every connection busy, so it finds the most the
server answers, and its latency is then the connections' queue (connections ÷ throughput). A
scenario whose goal is a rate and a latency together is also run at that steady rate
(bench/open-loop.ts: request i is sent at i ÷ rate seconds whether or not earlier ones were
answered, and its latency counts from then); its latency goals are judged there, its throughput
goal on the autocannon runs. For a scenario that makes documents, each phase also says how many
were accepted, signed (or approved) and transmitted per second meanwhile, and how many were left
waiting to be signed and not yet transmitted; where its goal is that the workers keep up, at
most \`backlogSecondsMax\` seconds of what was accepted may be left unfinished (not yet
transmitted, failed or canceled): signing alone keeping up is not enough.

The search scenario runs on PostgreSQL only, over \`BENCH_PROFILES\` (default 1,000,000) profiles
from \`etax generate profiles\`, imported once into a template database
(\`etax_bench_profiles_*\`, bench/profile-dataset.ts) that later runs copy. The peer is Stoplight
Prism (fetched with npx on first use) mocking openapi/openapi.json: the same request answered
from the document's examples, with no authentication, ledger or database behind it.
`;

export function writeResults(resultsFile: string, mode: DatabaseMode, section: string): void {
  const previous = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : '';
  // Every marked section of the file (the other mode's results, the hand-written history, the
  // sections the other benchmarks write) is kept as it is, in its place; only this mode's is
  // replaced, or put first when the file has none yet. The header is written afresh.
  const blocks = markedSections(previous);
  const own = `results:${mode}`;
  const body = blocks.some((block) => block.name === own)
    ? blocks.map((block) => (block.name === own ? section : block.text))
    : [section, ...blocks.map((block) => block.text)];
  writeFileSync(resultsFile, `${RESULTS_HEADER}\n${body.join('\n\n')}\n`);
}

