// `npm run bench`: measures a real `etax serve` process with autocannon and writes
// bench/RESULTS.md. Method: a fresh database (a new PostgreSQL database when DATABASE_URL is set,
// otherwise a new embedded DATA_DIR) is seeded with many accounts in this process, the server is
// started as a child process on a free port, and each scenario in bench/scenarios.ts gets a
// warm-up and then several timed runs, of which the median by requests per second is reported.
// A run with any non-2xx response, error or timeout is invalid and fails the benchmark.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../test/helpers/server-process.ts';
import { autocannon, createRotation, roundRobin } from './autocannon.ts';
import { runAtSteadyRate, type SteadyRateFigures } from './open-loop.ts';
import { analyzeDatabase, autovacuumIsOff, databaseUrl, withClient } from './postgres.ts';
import { ownCpuSeconds, postgresCpuSeconds, processCpuSeconds } from './process-cpu.ts';
import { createDatabaseFromTemplate, ensureProfileTemplate } from './profile-dataset.ts';
import { startPrism, type PrismPeer } from './prism.ts';
import {
  formatInvalid,
  formatSection,
  writeResults,
  type DatabaseMode,
  type DocumentCosts,
  type DocumentProcessing,
  type RunFigures,
  type ScenarioResult,
} from './report.ts';
import {
  REFERENCE_ID_SLOT,
  SCENARIOS,
  type Scenario,
  type ScenarioContext,
  type ScenarioRequest,
} from './scenarios.ts';
import { PAGE_SCENARIOS, runPageScenario, type PageScenario } from './dashboard-pages.ts';
import { seedKeys } from './seed-keys.ts';
import { startPgBouncer, temporaryFolder } from '../test/helpers/topology.ts';
import { registerMerchants, registerSuppliers } from './suppliers.ts';

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
  profiles: { env: 'BENCH_PROFILES', fallback: 1_000_000, min: 1, max: 10_000_000 },
  // 0: the server works the background jobs itself. N: the server is API-only
  // (WORKERS_ENABLED=false) and N more `etax serve` processes, sent no requests, work them, as
  // docs/operations.md recommends for production.
  workerProcesses: { env: 'BENCH_WORKER_PROCESSES', fallback: 0, min: 0, max: 8 },
  // 0: the scenarios' own steady rates (Scenario.steadyRatePerSecond). N: N requests a second
  // instead, to see a scenario's latency at other rates.
  steadyRate: { env: 'BENCH_STEADY_RATE', fallback: 0, min: 0, max: 100_000 },
  // 1: the servers reach PostgreSQL through PgBouncer in transaction pooling mode, with
  // unnamed statements, as docs/operations.md § Behind a load balancer and PgBouncer sets them
  // up; the benchmark's own queries go to PostgreSQL. PostgreSQL only.
  pgbouncer: { env: 'BENCH_PGBOUNCER', fallback: 0, min: 0, max: 1 },
} as const;
type OptionName = keyof typeof OPTION_SPECS;
type Options = Record<OptionName, number>;

// The rate limit the benchmark gives its operations: the largest a policy may have, per key.
const UNTHROTTLED_POLICY = { limit: 1_000_000, windowSeconds: 60 };
// Bounds the wait for the server to become ready: 480 × 250 ms.
const READY_ATTEMPTS_MAX = 480;
const READY_POLL_INTERVAL_MS = 250;
// Above the server's own shutdown timeout (25 s).
const EXIT_WAIT_MS = 30_000;
// Keys that get a registered issuer for the tax-invoice scenarios; registration runs one job per
// key, so a few dozen keep the setup short while spreading the writes over many balances.
const SUPPLIER_KEYS_MAX = 50;
// A request that takes this long counts as a timeout, which makes the run invalid.
const REQUEST_TIMEOUT_SECONDS = 10;
// Connections the steady-rate load may open: enough that requests due while the server is slow
// wait in the server, where their latency is measured, rather than for a connection.
const STEADY_RATE_CONNECTIONS_MAX = 256;

type BenchDatabase = {
  mode: DatabaseMode;
  env: Record<string, string>;
  // Profiles copied in from the generated data set, or null when no scenario needed them.
  profileCount: number | null;
  // PostgreSQL's autovacuum is off, so each scenario's warm-up is followed by an analysis
  // (postgres.ts, autovacuumIsOff).
  analysedAfterWarmUp: boolean;
  drop(): Promise<void>;
};

// --only (BENCH_ONLY) runs the scenarios whose names contain one of its comma-separated words,
// plus the baseline when a server scenario is among them; such a partial run prints its figures
// but leaves the server scenarios' section of RESULTS.md alone (each dashboard page scenario
// writes its own section whenever it runs).
function selectScenarios(): { server: readonly Scenario[]; pages: readonly PageScenario[];
  partial: boolean } {
  const { values } = parseArgs({ options: { only: { type: 'string' } }, strict: false });
  const only = String(values.only ?? process.env.BENCH_ONLY ?? '');
  const words = only.split(',').map((word) => word.trim()).filter((word) => word !== '');
  if (words.length === 0) return { server: SCENARIOS, pages: PAGE_SCENARIOS, partial: false };
  const matches = (name: string) => words.some((word) => name.includes(word));
  const server = SCENARIOS.filter((scenario) => !scenario.baseline && matches(scenario.name));
  const pages = PAGE_SCENARIOS.filter((scenario) => matches(scenario.name));
  if (server.length === 0 && pages.length === 0) {
    throw new Error(`--only ${only} matches no scenario`);
  }
  return { server: server.length === 0 ? [] : SCENARIOS.filter((scenario) =>
    scenario.baseline || server.includes(scenario)), pages, partial: true };
}

// An option's command-line flag: its name in kebab case (workerProcesses → --worker-processes).
function flagOf(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: Object.fromEntries(
      [...Object.keys(OPTION_SPECS).map(flagOf), 'only']
        .map((flag) => [flag, { type: 'string' as const }]),
    ),
  });
  const options = {} as Options;
  for (const name of Object.keys(OPTION_SPECS) as OptionName[]) {
    const spec = OPTION_SPECS[name];
    const raw = (values[flagOf(name)] as string | undefined) ?? process.env[spec.env] ?? '';
    const value = raw === '' ? spec.fallback : Number(raw);
    if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
      throw new Error(
        `--${flagOf(name)} (${spec.env}) must be an integer from ${spec.min} to ${spec.max}`);
    }
    options[name] = value;
  }
  return options;
}

// The generated data set's seed: the same seed always gives the same profiles.
const PROFILE_SEED = 'bench';

// A database of the benchmark's own, so results never depend on what earlier runs left behind.
// With a scenario that needs the profile store, it starts as a copy of the data set's template.
async function createBenchDatabase(
  options: Options,
  needsProfiles: boolean,
): Promise<BenchDatabase> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etb-'));
    return {
      mode: 'embedded',
      env: { DATA_DIR: dataDir },
      profileCount: null,
      analysedAfterWarmUp: false,
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `etax_bench_${randomBytes(6).toString('hex')}`;
  if (needsProfiles) {
    const template = await ensureProfileTemplate({
      root: ROOT,
      adminUrl: baseUrl,
      count: options.profiles,
      seed: PROFILE_SEED,
      log: (message) => process.stderr.write(`${message}\n`),
    });
    await createDatabaseFromTemplate(baseUrl, name, template);
  } else {
    await withClient(baseUrl, (client) => client.query(`create database ${name}`));
  }
  // The server still wants a DATA_DIR, though with DATABASE_URL it keeps nothing there.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'etb-'));
  return {
    mode: 'postgres',
    env: { DATABASE_URL: databaseUrl(baseUrl, name), DATA_DIR: dataDir },
    profileCount: needsProfiles ? options.profiles : null,
    analysedAfterWarmUp: await autovacuumIsOff(baseUrl),
    async drop() {
      await withClient(baseUrl, (client) =>
        client.query(`drop database if exists ${name} with (force)`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function startServer(env: Record<string, string>, port: number,
  role: 'all' | 'api' | 'workers' = 'all'): ServerProcess {
  const operations = [...new Set(SCENARIOS.flatMap((scenario) => scenario.operations))];
  const overrides = Object.fromEntries(operations.map((name) => [name, UNTHROTTLED_POLICY]));
  const scenarioEnv = Object.assign({}, ...SCENARIOS.map((scenario) => scenario.serverEnv ?? {}));
  return startServerProcess({
    port,
    env: {
      ...process.env,
      ...env,
      ...scenarioEnv,
      ...(role === 'all' ? {} : { WORKERS_ENABLED: role === 'workers' ? 'true' : 'false' }),
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
  const referenceId = `check-${randomBytes(6).toString('hex')}`;
  const headers = request.uniqueReferenceId
    ? { ...request.headers, 'service-client-reference-id': referenceId }
    : request.headers;
  const response = await fetch(`${baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body: request.uniqueReferenceId
      ? request.body?.replaceAll(REFERENCE_ID_SLOT, referenceId) : request.body,
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`${request.method} ${request.path} answered ${response.status}: ${text}`);
  }
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
    p97_5Ms: result.latency.p97_5,
    p99Ms: result.latency.p99,
    non2xxCount: result.non2xx,
    errorCount: result.errors,
    timeoutCount: result.timeouts,
  };
}

// Where a scenario's requests go: the etax server, or the peer.
type Target = { baseUrl: string; pid: number | undefined };

type ScenarioInput = {
  target: Target;
  scenario: Scenario;
  context: ScenarioContext;
  options: Options;
  // The server's database URL when the benchmark can read it (PostgreSQL), for makesDocuments.
  databaseUrl: string | undefined;
  // Whether to analyse that database after the warm-up (BenchDatabase.analysedAfterWarmUp).
  analyseAfterWarmUp: boolean;
  // Every etax process (the server and the worker processes), for the CPU a document costs.
  etaxPids: number[];
};

type DocumentCounts = { at: number; signed: number; transmitted: number; pending: number;
  unfinished: number; rowWrites: number };

// Where each kind of document waits before its first job (tax invoices to be signed, cash
// receipts to be approved), and the states of documents the workers have not finished with.
const DOCUMENT_TABLES = {
  taxInvoices: { table: 'tax_invoices', waiting: 'PENDING',
    unfinished: `'PENDING', 'APPROVED', 'ISSUED', 'TRANSMITTING'` },
  cashReceipts: { table: 'cash_receipts', waiting: 'ACCEPTED',
    unfinished: `'ACCEPTED', 'ISSUED'` },
} as const;

// Documents by stage, read straight from the server's database.
async function countDocuments(url: string, kind: keyof typeof DOCUMENT_TABLES):
  Promise<DocumentCounts> {
  const { table, waiting, unfinished } = DOCUMENT_TABLES[kind];
  // The statistics of other sessions reach pg_stat_user_tables within a second of their commit.
  await sleep(STATISTICS_DELAY_MS);
  const { rows: [row] } = await withClient(url, (client) => client.query<Record<string, string>>(
    `select count(*) filter (where status <> '${waiting}') as signed,
            count(*) filter (where status = 'TRANSMITTED') as transmitted,
            count(*) filter (where status = '${waiting}') as pending,
            count(*) filter (where status in (${unfinished})) as unfinished,
            (select sum(n_tup_ins + n_tup_upd + n_tup_del) from pg_stat_user_tables)
              as row_writes
       from ${table}`));
  return { at: performance.now(), signed: Number(row!.signed),
    transmitted: Number(row!.transmitted), pending: Number(row!.pending),
    unfinished: Number(row!.unfinished),
    rowWrites: Number(row!.row_writes) };
}

const STATISTICS_DELAY_MS = 1_500;

function processingBetween(before: DocumentCounts, after: DocumentCounts): DocumentProcessing {
  const seconds = (after.at - before.at) / 1_000;
  const accepted = after.signed + after.pending - before.signed - before.pending;
  return {
    acceptedPerSecond: accepted / seconds,
    signedPerSecond: (after.signed - before.signed) / seconds,
    transmittedPerSecond: (after.transmitted - before.transmitted) / seconds,
    pendingAtEnd: after.pending,
    unfinishedAtEnd: after.unfinished,
  };
}

// Documents whose processing has not ended: still work for the server's workers.
const IN_FLIGHT_SQL = `select ${Object.values(DOCUMENT_TABLES).map(({ table, unfinished }) =>
  `(select count(*) from ${table} where status in (${unfinished}))`).join(' + ')} as in_flight`;
const DRAIN_WAIT_MS_MAX = 180_000;
const DRAIN_POLL_MS = 1_000;

// A scenario starts once the workers have finished what earlier scenarios left them, so it
// measures its own work, not a backlog's: tax invoices signed and transmitted after their
// scenario ended would otherwise take CPU from the next one. Waits at most three minutes.
async function waitForIdleWorkers(url: string): Promise<void> {
  const started = performance.now();
  for (;;) {
    const { rows: [row] } = await withClient(url, (client) =>
      client.query<{ in_flight: string }>(IN_FLIGHT_SQL));
    const inFlight = Number(row!.in_flight);
    if (inFlight === 0) return;
    if (performance.now() - started > DRAIN_WAIT_MS_MAX) {
      process.stderr.write(`  starting with ${inFlight} documents still in processing\n`);
      return;
    }
    await sleep(DRAIN_POLL_MS);
  }
}

// The warm-up, then the timed runs, with what the workers did with the scenario's documents
// meanwhile; the median run is the median by `rankBy`.
async function timedRuns<Figures>(input: ScenarioInput, spec: {
  run(durationSeconds: number): Promise<Figures>;
  // What the progress line of each run says between the scenario's name and "run i/n", and
  // after it.
  phase: string;
  describe(figures: Figures): string;
  rankBy(figures: Figures): number;
}) {
  const { scenario, options } = input;
  if (options.warmup > 0) await spec.run(options.warmup);
  if (input.databaseUrl !== undefined && input.analyseAfterWarmUp) {
    await analyzeDatabase(input.databaseUrl);
  }
  const documentsUrl = scenario.makesDocuments ? input.databaseUrl : undefined;
  const documentKind = scenario.makesDocuments;
  const documentsBefore = documentsUrl && documentKind &&
    await countDocuments(documentsUrl, documentKind);
  const runs: Figures[] = [];
  for (let runIndex = 0; runIndex < options.runs; runIndex += 1) {
    const figures = await spec.run(options.duration);
    process.stderr.write(`  ${scenario.name}${spec.phase} run ${runIndex + 1}/${options.runs}: ` +
      `${spec.describe(figures)}\n`);
    runs.push(figures);
  }
  const processing = documentsUrl && documentKind && documentsBefore
    ? processingBetween(documentsBefore, await countDocuments(documentsUrl, documentKind))
    : undefined;
  const sorted = [...runs].sort((a, b) => spec.rankBy(a) - spec.rankBy(b));
  return { runs, median: sorted[Math.floor((sorted.length - 1) / 2)]!, processing };
}

// What one document cost, from idle workers to idle workers around every request of the
// scenario (its check, warm-up and timed runs): the rows PostgreSQL wrote for it
// (pg_stat_user_tables, every table) and the CPU time of the etax processes, per document
// accepted. Steadier than the rates on a busy machine, and exact where the rates' window is not
// (documents accepted before it are processed in it).
function isLocalDatabase(url: string): boolean {
  return ['127.0.0.1', 'localhost', '[::1]', ''].includes(new URL(url).hostname);
}

async function documentCosts(input: ScenarioInput, work: () => Promise<void>):
  Promise<DocumentCosts | undefined> {
  const url = input.databaseUrl;
  const kind = input.scenario.makesDocuments;
  if (url === undefined || kind === undefined) {
    await work();
    return undefined;
  }
  const cpuSeconds = () => input.etaxPids.reduce((sum, pid) =>
    sum + (processCpuSeconds(pid) ?? 0), 0);
  // PostgreSQL's processes are read only when the database runs on this machine.
  const databaseCpuSeconds = isLocalDatabase(url) ? postgresCpuSeconds : () => null;
  const before = await countDocuments(url, kind);
  const cpuBefore = cpuSeconds();
  const databaseCpuBefore = databaseCpuSeconds();
  const ownCpuBefore = ownCpuSeconds();
  await work();
  await waitForIdleWorkers(url);
  const after = await countDocuments(url, kind);
  const accepted = Math.max(1, after.signed + after.pending - before.signed - before.pending);
  const databaseCpuAfter = databaseCpuSeconds();
  const perDocumentMs = (seconds: number) => (seconds * 1_000) / accepted;
  return { documents: accepted,
    rowWritesPerDocument: (after.rowWrites - before.rowWrites) / accepted,
    cpuMsPerDocument: perDocumentMs(cpuSeconds() - cpuBefore),
    databaseCpuMsPerDocument: databaseCpuBefore === null || databaseCpuAfter === null ? null
      : perDocumentMs(databaseCpuAfter - databaseCpuBefore),
    loadGeneratorCpuMsPerDocument: perDocumentMs(ownCpuSeconds() - ownCpuBefore) };
}

async function runScenario(input: ScenarioInput) {
  const { target, scenario, context, options } = input;
  if (input.databaseUrl !== undefined) await waitForIdleWorkers(input.databaseUrl);
  const requests = scenario.buildRequests(context);
  await checkScenario(target.baseUrl, requests);
  const connections = scenario.connections ?? options.connections;
  const common = {
    serverPid: target.pid,
    url: target.baseUrl,
    requests,
    options: { ...options, connections },
  };
  let timed: Awaited<ReturnType<typeof timedRuns<RunFigures>>> | undefined;
  const costs = await documentCosts(input, async () => {
    timed = await timedRuns(input, {
      run: (durationSeconds) => measure({ ...common, durationSeconds }),
      phase: '',
      describe: (figures) => `${figures.requestsPerSecond.toFixed(0)} req/s`,
      rankBy: (figures) => figures.requestsPerSecond,
    });
  });
  const { runs, median, processing } = timed!;
  const steadyRate = scenario.steadyRatePerSecond === undefined ? undefined
    : options.steadyRate || scenario.steadyRatePerSecond;
  // A rate above the most the server answered would only measure a queue that grows for the
  // whole run, and leave its backlog to the next scenario.
  const steady = steadyRate === undefined || median.requestsPerSecond < steadyRate ? undefined
    : await runSteadyRate({ ...input, requests, ratePerSecond: steadyRate });
  return { scenario, runs, median, processing, steady, costs };
}

// The scenario's runs at its steady arrival rate, after the workers have caught up with the
// autocannon runs; the median run is the one with the median p99.
async function runSteadyRate(input: ScenarioInput & { requests: ScenarioRequest[];
  ratePerSecond: number }) {
  if (input.databaseUrl !== undefined) await waitForIdleWorkers(input.databaseUrl);
  const nextRequest = createRotation(input.requests);
  return timedRuns<SteadyRateFigures>(input, {
    run: (durationSeconds) => runAtSteadyRate({ url: input.target.baseUrl, nextRequest,
      ratePerSecond: input.ratePerSecond, durationSeconds,
      connectionsMax: STEADY_RATE_CONNECTIONS_MAX, timeoutSeconds: REQUEST_TIMEOUT_SECONDS }),
    phase: ` at ${input.ratePerSecond} req/s,`,
    describe: (figures) => `${figures.answeredPerSecond.toFixed(0)} req/s answered, ` +
      `p99 ${figures.p99Ms} ms`,
    rankBy: (figures) => figures.p99Ms,
  });
}

async function benchmark(
  options: Options,
  scenarios: readonly Scenario[],
  database: BenchDatabase,
): Promise<ScenarioResult[]> {
  process.stderr.write(`seeding ${options.keys} accounts (${database.mode})…\n`);
  const keys = await seedKeys(database.env, options.keys);
  const pooler = options.pgbouncer === 1 ? await pgBouncerInFront(database) : null;
  const serverEnv = pooler?.env ?? database.env;
  const split = options.workerProcesses > 0;
  const server = startServer(serverEnv, await freePort(), split ? 'api' : 'all');
  const workers: ServerProcess[] = [];
  let prism: PrismPeer | null = null;
  try {
    const ready = { attemptsMax: READY_ATTEMPTS_MAX, pollIntervalMs: READY_POLL_INTERVAL_MS };
    await waitUntilReady(server, ready);
    for (let index = 0; index < options.workerProcesses; index += 1) {
      workers.push(startServer(serverEnv, await freePort(), 'workers'));
      await waitUntilReady(workers.at(-1)!, ready);
    }
    const etax: Target = { baseUrl: server.baseUrl, pid: server.child.pid };
    const suppliers = scenarios.some((scenario) => scenario.suppliers)
      ? await registerSuppliers(server.baseUrl, keys.keys.slice(0, SUPPLIER_KEYS_MAX))
      : [];
    const merchants = scenarios.some((scenario) => scenario.merchants)
      ? await registerMerchants(server.baseUrl, keys.keys.slice(0, SUPPLIER_KEYS_MAX))
      : [];
    const context: ScenarioContext = { ...keys, suppliers, merchants };
    const results: ScenarioResult[] = [];
    for (const scenario of scenarios) {
      process.stderr.write(`${scenario.name}\n`);
      let target = etax;
      if (scenario.peer) {
        process.stderr.write(`  starting ${scenario.name.split(':')[0]} (npx)…\n`);
        prism ??= await startPrism(ROOT, await freePort(), '/healthz');
        target = { baseUrl: prism.baseUrl, pid: prism.child.pid };
      }
      const databaseUrl = database.mode === 'postgres' ? database.env.DATABASE_URL : undefined;
      const etaxPids = [server, ...workers].flatMap(({ child }) =>
        (child.pid === undefined ? [] : [child.pid]));
      results.push(await runScenario({ target, scenario, context, options, databaseUrl,
        analyseAfterWarmUp: database.analysedAfterWarmUp, etaxPids }));
    }
    return results;
  } finally {
    await prism?.stop();
    for (const worker of workers) await stopServerProcess(worker, { exitWaitMs: EXIT_WAIT_MS });
    await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS });
    await pooler?.stop();
  }
}

// PgBouncer (Debian's, 1.18) in front of the benchmark database; the servers' settings for it.
async function pgBouncerInFront(database: BenchDatabase) {
  if (database.mode !== 'postgres') throw new Error('--pgbouncer needs DATABASE_URL');
  const direct = new URL(database.env.DATABASE_URL!);
  const { folder, remove } = temporaryFolder();
  const port = await freePort();
  const daemon = await startPgBouncer({ folder, port,
    postgresPort: Number(direct.port || 5432), user: decodeURIComponent(direct.username) });
  const pooled = new URL(direct);
  pooled.hostname = '127.0.0.1';
  pooled.port = String(port);
  return {
    env: { ...database.env, DATABASE_URL: pooled.toString(),
      DATABASE_DIRECT_URL: direct.toString(), DATABASE_PREPARED_STATEMENTS: 'false' },
    async stop() {
      await daemon.stop();
      remove();
    },
  };
}

// The dashboard page scenarios (bench/dashboard-pages.ts), in this process, after the server
// scenarios; PostgreSQL only. Whether each met its goal.
async function runPageScenarios(pages: readonly PageScenario[]): Promise<string[]> {
  const adminUrl = process.env.DATABASE_URL;
  if (pages.length === 0) return [];
  if (!adminUrl) {
    process.stderr.write(`skipped (they need PostgreSQL; set DATABASE_URL): ` +
      `${pages.map((page) => page.name).join('; ')}\n`);
    return [];
  }
  const missed: string[] = [];
  for (const page of pages) {
    process.stderr.write(`${page.name}\n`);
    const result = await runPageScenario(adminUrl, page, RESULTS_FILE,
      (line) => process.stderr.write(`${line}\n`));
    if (!result.met) missed.push(`${page.name}: p95 above ${page.p95MsMax} ms`);
  }
  return missed;
}

async function main(): Promise<void> {
  const options = readOptions();
  const selection = selectScenarios();
  if (selection.server.length > 0) await runServerScenarios(options, selection);
  const missed = await runPageScenarios(selection.pages);
  if (missed.length > 0) {
    process.stderr.write(`\ngoals not met (under the machine's load at the time):\n` +
      `${missed.join('\n')}\n`);
  }
}

async function runServerScenarios(options: Options,
  selection: ReturnType<typeof selectScenarios>): Promise<void> {
  const selected = selection.server;
  const loadAverage = os.loadavg()[0] ?? 0;
  // The profile store is generated into PostgreSQL; the embedded database skips its scenarios.
  const embedded = !process.env.DATABASE_URL;
  const skipped = embedded
    ? selected.filter((scenario) => scenario.profileStore).map((scenario) => ({
      scenario,
      reason: 'needs the generated profile store on PostgreSQL; set DATABASE_URL',
    }))
    : [];
  const scenarios = selected.filter((scenario) => !(embedded && scenario.profileStore));
  const needsProfiles = scenarios.some((scenario) => scenario.profileStore);
  const database = await createBenchDatabase(options, needsProfiles);
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
  const section = formatSection({
    mode: database.mode,
    results,
    skipped,
    options,
    profileCount: database.profileCount,
    analysedAfterWarmUp: database.analysedAfterWarmUp,
  }, loadAverage);
  process.stdout.write(`\n${section.split('\n').slice(1, -1).join('\n')}\n`);
  if (!selection.partial) {
    writeResults(RESULTS_FILE, database.mode, section);
    process.stdout.write(`\nwritten to ${path.relative(process.cwd(), RESULTS_FILE)}\n`);
  }
  const invalid = formatInvalid(results);
  if (invalid.length > 0) {
    process.stderr.write(`\n${'!'.repeat(72)}\n${invalid.join('\n')}\n${'!'.repeat(72)}\n`);
    process.exitCode = 1;
  }
}

await main();
