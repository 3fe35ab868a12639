// `npm run bench`: measures a real `etax serve` process with autocannon and writes
// bench/RESULTS.md. Method: a fresh database (a new PostgreSQL database when DATABASE_URL is set,
// otherwise a new embedded DATA_DIR) is seeded with many accounts in this process, the server is
// started as a child process on a free port, and each scenario in bench/scenarios.ts gets a
// warm-up and then several timed runs, of which the median by requests per second is reported.
// A run with any non-2xx response, error or timeout is invalid and fails the benchmark.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import pino from 'pino';
import { openPlatform } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../test/helpers/server-process.ts';
import { SCENARIOS, type Scenario, type ScenarioRequest } from './scenarios.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_FILE = path.join(ROOT, 'bench/RESULTS.md');

// Defaults and bounds of the options; each can be set by flag or environment variable.
const OPTION_SPECS = {
  duration: { env: 'BENCH_DURATION_SECONDS', fallback: 10, min: 1, max: 600 },
  warmup: { env: 'BENCH_WARMUP_SECONDS', fallback: 2, min: 0, max: 60 },
  connections: { env: 'BENCH_CONNECTIONS', fallback: 50, min: 1, max: 1_000 },
  pipelining: { env: 'BENCH_PIPELINING', fallback: 1, min: 1, max: 100 },
  runs: { env: 'BENCH_RUNS', fallback: 3, min: 1, max: 20 },
  keys: { env: 'BENCH_KEYS', fallback: 200, min: 1, max: 10_000 },
} as const;
type OptionName = keyof typeof OPTION_SPECS;
type Options = Record<OptionName, number>;

// Test points of every seeded account: the most TEST_SIGNUP_POINTS allows. Every autocannon
// connection starts at the first key, so the first keys take 50 calls per run each; a paid
// scenario must never run them dry, or it would measure 402s (a bulk holder lookup of 100
// accounts costs 5,000 points, so this covers 200,000 of them per key).
const BENCH_SIGNUP_POINTS = 1_000_000_000;
// The rate limit the benchmark gives its operations: the largest a policy may have, per key.
const UNTHROTTLED_POLICY = { limit: 1_000_000, windowSeconds: 60 };
// Bounds the wait for the server to become ready: 480 × 250 ms.
const READY_ATTEMPTS_MAX = 480;
const READY_POLL_INTERVAL_MS = 250;
// Above the server's own shutdown timeout (25 s).
const EXIT_WAIT_MS = 30_000;
// A request that takes this long counts as a timeout, which makes the run invalid.
const REQUEST_TIMEOUT_SECONDS = 10;

type AutocannonRequest = {
  setupRequest(request: Record<string, unknown>): Record<string, unknown>;
};
type AutocannonResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  timeouts: number;
};
type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  pipelining: number;
  timeout: number;
  requests: AutocannonRequest[];
};
// Hands out a scenario's requests in one global rotation. autocannon would otherwise cycle each
// connection through the list from its start, so all connections would use the same key at the
// same moment and a scenario that writes (reserve and capture points) would measure 50
// connections queueing on one account's balance row instead of the server.
function roundRobin(requests: ScenarioRequest[]): AutocannonRequest[] {
  let nextIndex = 0;
  return [{
    setupRequest(request) {
      const chosen = requests[nextIndex % requests.length]!;
      nextIndex += 1;
      return { ...request, ...chosen };
    },
  }];
}

// autocannon ships no types; this is the part of its programmatic API we use.
const autocannon = createRequire(import.meta.url)('autocannon') as (
  options: AutocannonOptions,
) => Promise<AutocannonResult>;

type DatabaseMode = 'postgres' | 'embedded';
type BenchDatabase = { mode: DatabaseMode; env: Record<string, string>; drop(): Promise<void> };
type RunFigures = {
  requestsPerSecond: number;
  // CPU time the server process spent per request (Linux only): unlike req/s, it barely moves
  // when other work on the machine competes for the cores.
  serverCpuMicrosecondsPerRequest: number | null;
  p50Ms: number;
  p99Ms: number;
  non2xxCount: number;
  errorCount: number;
  timeoutCount: number;
};
type ScenarioResult = { scenario: Scenario; median: RunFigures; runs: RunFigures[] };

// --only (BENCH_ONLY) runs the scenarios whose names contain one of its comma-separated words,
// plus the baseline; such a partial run prints its figures but leaves RESULTS.md alone.
function selectScenarios(): readonly Scenario[] {
  const { values } = parseArgs({ options: { only: { type: 'string' } }, strict: false });
  const only = String(values.only ?? process.env.BENCH_ONLY ?? '');
  const words = only.split(',').map((word) => word.trim()).filter((word) => word !== '');
  if (words.length === 0) return SCENARIOS;
  const selected = SCENARIOS.filter((scenario) =>
    scenario.baseline || words.some((word) => scenario.name.includes(word)));
  if (selected.length === SCENARIOS.filter((scenario) => scenario.baseline).length) {
    throw new Error(`--only ${only} matches no scenario`);
  }
  return selected;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: Object.fromEntries(
      [...Object.keys(OPTION_SPECS), 'only'].map((name) => [name, { type: 'string' as const }]),
    ),
  });
  const options = {} as Options;
  for (const name of Object.keys(OPTION_SPECS) as OptionName[]) {
    const spec = OPTION_SPECS[name];
    const raw = (values[name] as string | undefined) ?? process.env[spec.env] ?? '';
    const value = raw === '' ? spec.fallback : Number(raw);
    if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
      throw new Error(`--${name} (${spec.env}) must be an integer from ${spec.min} to ${spec.max}`);
    }
    options[name] = value;
  }
  return options;
}

// A database of the benchmark's own, so results never depend on what earlier runs left behind.
async function createBenchDatabase(): Promise<BenchDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etb-'));
    return {
      mode: 'embedded',
      env: { DATA_DIR: dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `etax_bench_${randomBytes(6).toString('hex')}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  await withAdminClient(baseUrl, (client) => client.query(`create database ${name}`));
  // The server still wants a DATA_DIR, though with DATABASE_URL it keeps nothing there.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etb-'));
  return {
    mode: 'postgres',
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    async drop() {
      await withAdminClient(baseUrl, (client) =>
        client.query(`drop database if exists ${name} with (force)`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function withAdminClient(url: string, work: (client: pg.Client) => Promise<unknown>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

// Creates the accounts in this process, before the server starts: one process per key through
// the CLI would take minutes, and an embedded database can be open in only one process at a time.
async function seedKeys(env: Record<string, string>, keyCount: number): Promise<string[]> {
  const config = loadConfig({
    ...process.env,
    ...env,
    LOG_LEVEL: 'warn',
    TEST_SIGNUP_POINTS: String(BENCH_SIGNUP_POINTS),
  });
  const platform = await openPlatform(config, pino({ level: 'warn' }, pino.destination(2)));
  try {
    const keys: string[] = [];
    for (let index = 0; index < keyCount; index += 1) {
      const name = `bench ${index}`;
      const account = await platform.accounts.createAccount({ name, plan: 'FREE' });
      keys.push(account.keys.test);
    }
    return keys;
  } finally {
    await platform.close();
  }
}

function startServer(env: Record<string, string>, port: number): ServerProcess {
  const operations = [...new Set(SCENARIOS.flatMap((scenario) => scenario.operations))];
  const overrides = Object.fromEntries(operations.map((name) => [name, UNTHROTTLED_POLICY]));
  const scenarioEnv = Object.assign({}, ...SCENARIOS.map((scenario) => scenario.serverEnv ?? {}));
  return startServerProcess({
    port,
    env: {
      ...process.env,
      ...env,
      ...scenarioEnv,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_OVERRIDES: JSON.stringify(overrides),
    },
    // For example "--cpu-prof --cpu-prof-dir=/tmp", to profile the server under the load.
    nodeArgs: (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
  });
}

// One request of each kind outside the timed runs: a scenario that fails here would only
// measure error responses.
async function checkScenario(baseUrl: string, requests: ScenarioRequest[]): Promise<void> {
  const request = requests[0]!;
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${request.method} ${request.path} answered ${response.status}: ${text}`);
  }
}

// Clock ticks per second of /proc/<pid>/stat times; 100 on every common Linux.
const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

// User plus system CPU seconds of a process, or null where /proc is not available.
function processCpuSeconds(pid: number | undefined): number | null {
  const statFile = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(statFile)) return null;
  const stat = readFileSync(statFile, 'utf8');
  // Fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}

type MeasureInput = {
  serverPid: number | undefined;
  url: string;
  requests: ScenarioRequest[];
  options: Options;
  durationSeconds: number;
};

async function measure(input: MeasureInput): Promise<RunFigures> {
  const { serverPid, url, requests, options, durationSeconds } = input;
  const cpuBeforeSeconds = processCpuSeconds(serverPid);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: durationSeconds,
    pipelining: options.pipelining,
    timeout: REQUEST_TIMEOUT_SECONDS,
    requests: roundRobin(requests),
  });
  const cpuAfterSeconds = processCpuSeconds(serverPid);
  const cpuSeconds = cpuBeforeSeconds === null || cpuAfterSeconds === null
    ? null
    : cpuAfterSeconds - cpuBeforeSeconds;
  return {
    requestsPerSecond: result.requests.average,
    serverCpuMicrosecondsPerRequest: cpuSeconds === null || result.requests.total === 0
      ? null
      : (cpuSeconds * 1e6) / result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xxCount: result.non2xx,
    errorCount: result.errors,
    timeoutCount: result.timeouts,
  };
}

type ScenarioInput = {
  server: ServerProcess;
  scenario: Scenario;
  keys: string[];
  options: Options;
};

async function runScenario({ server, scenario, keys, options }: ScenarioInput) {
  const requests = scenario.buildRequests({ keys });
  await checkScenario(server.baseUrl, requests);
  const common = { serverPid: server.child.pid, url: server.baseUrl, requests, options };
  if (options.warmup > 0) await measure({ ...common, durationSeconds: options.warmup });
  const runs: RunFigures[] = [];
  for (let runIndex = 0; runIndex < options.runs; runIndex += 1) {
    const figures = await measure({ ...common, durationSeconds: options.duration });
    process.stderr.write(
      `  ${scenario.name} run ${runIndex + 1}/${options.runs}: ` +
      `${figures.requestsPerSecond.toFixed(0)} req/s\n`,
    );
    runs.push(figures);
  }
  const sorted = [...runs].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return { scenario, runs, median: sorted[Math.floor((sorted.length - 1) / 2)]! };
}

function failedResponseCount(result: ScenarioResult): number {
  return result.runs.reduce(
    (sum, run) => sum + run.non2xxCount + run.errorCount + run.timeoutCount,
    0,
  );
}

function formatTable(results: ScenarioResult[]): string {
  const lines = [
    '| scenario | req/s | p50 ms | p99 ms | non-2xx (all runs) | errors + timeouts (all runs) ' +
    '| server CPU µs/req | runs (req/s) |',
    '|---|--:|--:|--:|--:|--:|--:|---|',
  ];
  for (const { scenario, median, runs } of results) {
    const allRuns = runs.map((run) => run.requestsPerSecond.toFixed(0)).join(' / ');
    const nonSuccess = runs.reduce((sum, run) => sum + run.non2xxCount, 0);
    const failures = runs.reduce((sum, run) => sum + run.errorCount + run.timeoutCount, 0);
    const cpu = median.serverCpuMicrosecondsPerRequest?.toFixed(0) ?? 'n/a';
    lines.push(
      `| ${scenario.name} | ${median.requestsPerSecond.toFixed(0)} | ${median.p50Ms} | ` +
      `${median.p99Ms} | ${nonSuccess} | ${failures} | ${cpu} | ${allRuns} |`,
    );
  }
  return lines.join('\n');
}

// One line per latency goal: the median run's p50 and p99 against the scenario's p50MsMax and
// p99MsMax.
function formatLatencyGoals(results: ScenarioResult[]): string[] {
  const lines: string[] = [];
  for (const { scenario, median } of results) {
    const goals: Array<[string, number, number | undefined]> = [
      ['p50', median.p50Ms, scenario.p50MsMax],
      ['p99', median.p99Ms, scenario.p99MsMax],
    ];
    for (const [label, actual, goal] of goals) {
      if (goal === undefined) continue;
      const verdict = actual <= goal ? 'met' : '**NOT met**';
      lines.push(`- ${scenario.name}: ${label} ${actual} ms (goal ≤ ${goal} ms): ${verdict}.`);
    }
  }
  return lines;
}

// One line per scenario with a goal: its throughput as a share of the baseline's.
function formatGoals(results: ScenarioResult[]): string[] {
  const baseline = results.find((result) => result.scenario.baseline);
  if (!baseline) return formatLatencyGoals(results);
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
  return [...lines, ...formatLatencyGoals(results)];
}

function formatInvalid(results: ScenarioResult[]): string[] {
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

type SectionInput = { mode: DatabaseMode; results: ScenarioResult[]; options: Options };

function formatSection({ mode, results, options }: SectionInput, loadAverage: number): string {
  const limiter = process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'in-process memory';
  return [
    `<!-- results:${mode} -->`,
    `## ${MODE_TITLES[mode]}`,
    '',
    `- Date: ${new Date().toISOString()}`,
    ...machineLines(),
    // Other work on the machine takes CPU from the server and the load generator alike.
    `- System load average (1 min) when the benchmark started: ${loadAverage.toFixed(2)}`,
    `- Database: ${MODE_TITLES[mode]}, fresh for the run, ${options.keys} accounts`,
    `- Rate limiter: ${limiter}; the benchmarked operations' limits are lifted`,
    `- Load: ${options.connections} connections, pipelining ${options.pipelining}, ` +
    `${options.warmup} s warm-up, then ${options.runs} runs of ${options.duration} s per scenario`,
    '- The table shows the median run by req/s; the last column lists every run',
    '',
    formatTable(results),
    '',
    ...formatGoals(results),
    ...formatInvalid(results),
    `<!-- /results:${mode} -->`,
  ].join('\n');
}

const RESULTS_HEADER = `# etax benchmarks

Generated by \`npm run bench\` (bench/run.ts); each run replaces only the section of its database
mode. Run it on an otherwise idle machine:

\`\`\`sh
DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL= npm run bench   # PostgreSQL
npm run bench                                                                  # embedded
npm run bench -- --duration 5 --connections 100 --runs 1   # or BENCH_DURATION_SECONDS etc.
\`\`\`

The server runs as a child process (\`etax serve\`, LOG_LEVEL=warn, workers on) on a fresh
database with many accounts; the rate limits of the benchmarked operations are lifted. Scenarios
are listed in bench/scenarios.ts. A run with any non-2xx response is invalid. autocannon records
latency in whole milliseconds (0 means under 1 ms). Server CPU µs/req is the server process's
CPU time divided by the requests answered; it is steadier than req/s when other work competes for
the cores.
`;

function writeResults(mode: DatabaseMode, section: string): void {
  const previous = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '';
  const sections = (['postgres', 'embedded'] as const).map((name) => {
    if (name === mode) return section;
    const pattern = new RegExp(`<!-- results:${name} -->[\\s\\S]*?<!-- /results:${name} -->`);
    return pattern.exec(previous)?.[0] ?? null;
  });
  // The hand-written history of changes and their measured effect is kept as it is.
  const history = /<!-- history -->[\s\S]*?<!-- \/history -->/.exec(previous)?.[0] ?? null;
  const body = [...sections, history].filter((text) => text !== null).join('\n\n');
  writeFileSync(RESULTS_FILE, `${RESULTS_HEADER}\n${body}\n`);
}

async function benchmark(
  options: Options,
  scenarios: readonly Scenario[],
  database: BenchDatabase,
): Promise<ScenarioResult[]> {
  process.stderr.write(`seeding ${options.keys} accounts (${database.mode})…\n`);
  const keys = await seedKeys(database.env, options.keys);
  const server = startServer(database.env, await freePort());
  try {
    await waitUntilReady(server, {
      attemptsMax: READY_ATTEMPTS_MAX,
      pollIntervalMs: READY_POLL_INTERVAL_MS,
    });
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      process.stderr.write(`${scenario.name}\n`);
      results.push(await runScenario({ server, scenario, keys, options }));
    }
    return results;
  } finally {
    await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS });
  }
}

async function main(): Promise<void> {
  const options = readOptions();
  const scenarios = selectScenarios();
  const loadAverage = os.loadavg()[0] ?? 0;
  const database = await createBenchDatabase();
  // Ctrl-C reaches the server too (same process group); the database must not be left behind.
  process.once('SIGINT', () => {
    process.stderr.write('interrupted: dropping the benchmark database\n');
    void database.drop().finally(() => process.exit(130));
  });
  let results: ScenarioResult[];
  try {
    results = await benchmark(options, scenarios, database);
  } finally {
    await database.drop();
  }
  const section = formatSection({ mode: database.mode, results, options }, loadAverage);
  process.stdout.write(`\n${section.split('\n').slice(1, -1).join('\n')}\n`);
  if (scenarios.length === SCENARIOS.length) {
    writeResults(database.mode, section);
    process.stdout.write(`\nwritten to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  }
  const invalid = formatInvalid(results);
  if (invalid.length > 0) {
    process.stderr.write(`\n${'!'.repeat(72)}\n${invalid.join('\n')}\n${'!'.repeat(72)}\n`);
    process.exitCode = 1;
  }
}

await main();
