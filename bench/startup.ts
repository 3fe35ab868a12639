// `npm run bench:startup`: how long `etax serve` takes from process start to its first 200 from
// GET /healthz, and how much memory it holds, on a new and on an existing database of the current
// mode (embedded PGlite, or PostgreSQL when DATABASE_URL is set). Method: the server is spawned
// as an operator would (`node bin/etax.js serve`, LOG_LEVEL=info) on a free port; /healthz is
// polled every POLL_INTERVAL_MS from the moment of the spawn; then a few requests run and the
// resident set size is read from /proc. A new database is made for every "new" start; the
// "existing" starts share one database that an untimed start created and migrated first. Each
// case runs --runs times (default 5) and the median is reported, since other work on the
// machine makes single starts noisy. When the server logs its start-up phases (the `started`
// line, src/platform/startup-phases.ts), their medians are reported as well.
//
// `-- --against <folder>` measures another checkout of etax (with its node_modules) too, such as
// an older commit, start by start in turn with this one: both then see the same load.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../test/helpers/database.ts';
import {
  freePort,
  hasExited,
  stopServerProcess,
  type ServerProcess,
} from '../test/helpers/server-process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const HOST = '127.0.0.1';
const POLL_INTERVAL_MS = 10;
// A start slower than this is broken, not slow.
const START_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const RUNS_MAX = 50;
// Enough of a server's output to find its `started` line and explain a failed start.
const OUTPUT_CHARACTERS_MAX = 50_000;
// "A few requests" after the start: enough to load what the first requests load (routing,
// serialization, the docs page) without turning this into a load test.
const REQUEST_ROUNDS = 10;
const REQUEST_PATHS = ['/healthz', '/readyz', '/v1/points', '/openapi.json', '/docs'];
// Clock ticks per second of /proc/<pid>/stat; 100 on Linux.
const CLOCK_TICKS_PER_SECOND = 100;

// A checkout whose `etax serve` is measured.
type Target = { name: string; root: string };

type Sample = {
  healthzMs: number;
  // CPU time (user + system) the server used until then: steadier than healthzMs when other
  // work competes for the cores.
  cpuMs: number;
  rssAfterStartMb: number;
  rssAfterRequestsMb: number;
  // The peak resident set size of the whole run (VmHWM).
  rssPeakMb: number;
  // From the server's `started` line: ms since process start and RSS in MB, by phase.
  phases: Record<string, number>;
  phaseRssMb: Record<string, number>;
};

function readStatusMb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!match) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}

function readCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
  return (ticks * 1_000) / CLOCK_TICKS_PER_SECOND;
}

// `node bin/etax.js serve` of the target, as test/helpers/server-process.ts starts this
// checkout's, with the output kept.
function startServer(target: Target, port: number, env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(process.execPath, [path.join(target.root, 'bin/etax.js'), 'serve'], {
    cwd: target.root,
    env: { ...env, PORT: String(port), HOST, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < OUTPUT_CHARACTERS_MAX) output += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, baseUrl: `http://${HOST}:${port}`, output: () => output };
}

async function waitForHealthz(server: ServerProcess): Promise<void> {
  const deadline = performance.now() + START_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (hasExited(server)) throw new Error(`etax serve exited:\n${server.output()}`);
    const response = await fetch(`${server.baseUrl}/healthz`).catch(() => null);
    await response?.arrayBuffer();
    if (response?.status === 200) return;
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(`no 200 from /healthz within ${START_TIMEOUT_MS} ms:\n${server.output()}`);
}

type StartedLine = { startupMs?: Record<string, number>; rssMb?: Record<string, number> };

// The phases of the `started` log line (src/platform/startup-phases.ts), when the server logs one.
function startedPhases(output: string): Pick<Sample, 'phases' | 'phaseRssMb'> {
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"started"')) continue;
    const parsed = JSON.parse(line) as StartedLine;
    return { phases: parsed.startupMs ?? {}, phaseRssMb: parsed.rssMb ?? {} };
  }
  return { phases: {}, phaseRssMb: {} };
}

async function measureRunning(server: ServerProcess, startedAt: number): Promise<Sample> {
  await waitForHealthz(server);
  const healthzMs = performance.now() - startedAt;
  const pid = server.child.pid!;
  const cpuMs = readCpuMs(pid);
  const rssAfterStartMb = readStatusMb(pid, 'VmRSS');
  for (let round = 0; round < REQUEST_ROUNDS; round += 1) {
    for (const requestPath of REQUEST_PATHS) {
      const response = await fetch(`${server.baseUrl}${requestPath}`);
      await response.arrayBuffer();
    }
  }
  // The `started` line may follow the first answer by a moment.
  await sleep(50);
  return {
    healthzMs,
    cpuMs,
    rssAfterStartMb,
    rssAfterRequestsMb: readStatusMb(pid, 'VmRSS'),
    rssPeakMb: readStatusMb(pid, 'VmHWM'),
    ...startedPhases(server.output()),
  };
}

async function startOnce(target: Target, env: NodeJS.ProcessEnv): Promise<Sample> {
  const port = await freePort();
  const startedAt = performance.now();
  const server = startServer(target, port, env);
  const stop = () => stopServerProcess(server, { exitWaitMs: STOP_TIMEOUT_MS });
  const sample = await measureRunning(server, startedAt).catch(async (error: unknown) => {
    await stop(); // A failed run leaves no server behind.
    throw error;
  });
  const code = await stop();
  if (code !== 0) throw new Error(`etax serve exited with ${code}:\n${server.output()}`);
  return sample;
}

function baseEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL']) {
    delete env[name];
  }
  if (process.env.REDIS_URL) env.REDIS_URL = process.env.REDIS_URL;
  return env;
}

async function withDatabase<T>(work: (database: TestDatabase) => Promise<T>): Promise<T> {
  const database = await createTestDatabase();
  try {
    return await work(database);
  } finally {
    await database.drop();
  }
}

// Samples by target, the targets started in turn, run after run.
async function measureNew(targets: Target[], runs: number): Promise<Sample[][]> {
  const samples: Sample[][] = targets.map(() => []);
  for (let run = 0; run < runs; run += 1) {
    for (const [index, target] of targets.entries()) {
      samples[index]!.push(await withDatabase((database) =>
        startOnce(target, { ...baseEnv(), ...database.env })));
    }
  }
  return samples;
}

// Each target gets a database of its own, created and migrated by an untimed start.
async function measureExisting(targets: Target[], runs: number): Promise<Sample[][]> {
  const databases = await Promise.all(targets.map(() => createTestDatabase()));
  try {
    const envs = databases.map((database) => ({ ...baseEnv(), ...database.env }));
    for (const [index, target] of targets.entries()) await startOnce(target, envs[index]!);
    const samples: Sample[][] = targets.map(() => []);
    for (let run = 0; run < runs; run += 1) {
      for (const [index, target] of targets.entries()) {
        samples[index]!.push(await startOnce(target, envs[index]!));
      }
    }
    return samples;
  } finally {
    await Promise.all(databases.map((database) => database.drop()));
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function formatRow(name: string, samples: Sample[]): string {
  const times = samples.map((sample) => sample.healthzMs);
  const all = times.map((time) => Math.round(time)).join(' / ');
  const at = (pick: (sample: Sample) => number) => Math.round(median(samples.map(pick)));
  return `| ${name} | ${at((s) => s.healthzMs)} | ${at((s) => s.cpuMs)} | ` +
    `${at((s) => s.rssAfterStartMb)} | ${at((s) => s.rssAfterRequestsMb)} | ` +
    `${at((s) => s.rssPeakMb)} | ${all} |`;
}

function formatPhases(name: string, samples: Sample[]): string | null {
  const names = Object.keys(samples[0]?.phases ?? {});
  if (names.length === 0) return null;
  const cells = names.map((phase) => {
    const ms = median(samples.map((sample) => sample.phases[phase] ?? NaN));
    const mb = median(samples.map((sample) => sample.phaseRssMb[phase] ?? NaN));
    return `${phase} ${Math.round(ms)} ms ${Math.round(mb)} MB`;
  });
  return `- ${name}, phase ends since process start, and RSS then (medians): ${cells.join(', ')}`;
}

function readOptions(): { runs: number; only?: string; targets: Target[] } {
  const { values } = parseArgs({ options: {
    runs: { type: 'string', default: '5' },
    // `new` or `existing` measures only that case.
    only: { type: 'string' },
    against: { type: 'string' },
  } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > RUNS_MAX) {
    throw new Error(`--runs must be an integer from 1 to ${RUNS_MAX}`);
  }
  const targets = [{ name: 'this checkout', root: ROOT }];
  if (values.against !== undefined) {
    const root = path.resolve(values.against);
    targets.push({ name: root, root });
  }
  return { runs, only: values.only, targets };
}

const loadAverages = () => os.loadavg().map((average) => average.toFixed(2)).join(', ');
const { runs, only, targets } = readOptions();
const mode = usingPostgres ? 'PostgreSQL' : 'embedded';
const loadBefore = loadAverages();
const cases: Array<[string, Sample[]]> = [];
const addCase = (kind: string, samples: Sample[][]) => targets.forEach((target, index) => {
  cases.push([`${mode}, ${kind} database, ${target.name}`, samples[index]!]);
});
if (only !== 'new') addCase('existing', await measureExisting(targets, runs));
if (only !== 'existing') addCase('new', await measureNew(targets, runs));
process.stdout.write([
  `${new Date().toISOString()}, Node.js ${process.version}, ${os.cpus().length} cores, ` +
    `load average (1, 5, 15 min) ${loadBefore} before, ${loadAverages()} after, ` +
    `${runs} runs per case`,
  '',
  '| case | start → /healthz 200, median ms | server CPU until then, ms | ' +
    'RSS after start, MB | RSS after requests, MB | peak RSS, MB | every run, ms |',
  '|---|--:|--:|--:|--:|--:|---|',
  ...cases.map(([name, samples]) => formatRow(name, samples)),
  '',
  ...cases.map(([name, samples]) => formatPhases(name, samples)).filter((line) => line !== null),
  '',
].join('\n'));
