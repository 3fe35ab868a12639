// `npm run bench:redis-outage`: GET /v1/points latency of an `etax serve` process whose Redis is
// healthy and whose Redis hangs. Method: a fresh database of the current mode (embedded PGlite,
// or PostgreSQL when DATABASE_URL is set) with --keys seeded accounts; a redis-server of the
// benchmark's own (never the machine's shared Redis, which other work uses); the server on it
// with the limit of points.retrieve lifted and no job workers. Then --runs rounds, each of two
// autocannon runs of --duration seconds with --connections connections: one with Redis healthy,
// and one with Redis paused (SIGSTOP). Before the paused run, one call is made alone: it waits
// for the command timeout and switches the server to its in-memory counters, and its latency is
// reported apart; the paused run measures what every later call costs. After it Redis is resumed
// and the round waits until the server logs that it counts in Redis again. The report gives the
// median of each figure over the rounds and every round's p99; a run with any non-2xx response,
// error or timeout fails the benchmark. The machine's load average is printed with the figures.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, usingPostgres } from '../test/helpers/database.ts';
import { startPrivateRedis, type PrivateRedis } from '../test/helpers/redis-server.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../test/helpers/server-process.ts';
import { autocannon, roundRobin, type AutocannonResult } from './autocannon.ts';
import { basicAuth } from './scenarios.ts';
import { seedKeys } from './seed-keys.ts';

const OPTION_SPECS = {
  duration: { fallback: 5, min: 1, max: 600 },
  connections: { fallback: 50, min: 1, max: 1_000 },
  runs: { fallback: 5, min: 1, max: 20 },
  keys: { fallback: 50, min: 1, max: 10_000 },
} as const;
type Options = Record<keyof typeof OPTION_SPECS, number>;

const UNTHROTTLED_POLICY = { limit: 1_000_000, windowSeconds: 60 };
// Bounds the wait for the server to become ready: 480 × 250 ms.
const READY = { attemptsMax: 480, pollIntervalMs: 250 };
// Above the server's own shutdown timeout (25 s).
const EXIT_WAIT_MS = 30_000;
const REQUEST_TIMEOUT_SECONDS = 10;
// Bounds the wait for the server to count in Redis again after a resume: 200 × 50 ms, well
// above its probe interval.
const RETURN_POLL = { attemptsMax: 200, intervalMs: 50 };
const RETURN_MESSAGE = '"msg":"Redis answers again';

type Figures = { p50Ms: number; p99Ms: number; requestsPerSecond: number };
type Round = { healthy: Figures; paused: Figures; firstPausedCallMs: number };

function readOptions(): Options {
  const { values } = parseArgs({ options: Object.fromEntries(
    Object.keys(OPTION_SPECS).map((name) => [name, { type: 'string' as const }])) });
  const options = {} as Options;
  for (const [name, spec] of Object.entries(OPTION_SPECS)) {
    const raw = values[name];
    const value = raw === undefined ? spec.fallback : Number(raw);
    if (!Number.isSafeInteger(value) || value < spec.min || value > spec.max) {
      throw new Error(`--${name} must be an integer from ${spec.min} to ${spec.max}`);
    }
    options[name as keyof Options] = value;
  }
  return options;
}

function figuresOf(result: AutocannonResult, what: string): Figures {
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) {
    throw new Error(`${what}: ${result.non2xx} non-2xx, ${result.errors} errors, ` +
      `${result.timeouts} timeouts`);
  }
  return { p50Ms: result.latency.p50, p99Ms: result.latency.p99,
    requestsPerSecond: result.requests.average };
}

async function measure(server: ServerProcess, keys: string[], options: Options, what: string) {
  const requests = keys.map((key) => ({
    method: 'GET' as const, path: '/v1/points', headers: { authorization: basicAuth(key) },
  }));
  const result = await autocannon({
    url: server.baseUrl, connections: options.connections, duration: options.duration,
    pipelining: 1, timeout: REQUEST_TIMEOUT_SECONDS, requests: roundRobin(requests),
  });
  return figuresOf(result, what);
}

async function timedCall(server: ServerProcess, key: string): Promise<number> {
  const startedAt = performance.now();
  const response = await fetch(`${server.baseUrl}/v1/points`,
    { headers: { authorization: basicAuth(key) } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET /v1/points answered ${response.status}`);
  return performance.now() - startedAt;
}

const returnsLogged = (server: ServerProcess) => server.output().split(RETURN_MESSAGE).length - 1;

async function waitUntilBackInRedis(server: ServerProcess, returnsBefore: number) {
  for (let attempt = 0; attempt < RETURN_POLL.attemptsMax; attempt += 1) {
    if (returnsLogged(server) > returnsBefore) return;
    await sleep(RETURN_POLL.intervalMs);
  }
  throw new Error(`the server did not count in Redis again:\n${server.output()}`);
}

async function round(server: ServerProcess, redis: PrivateRedis, keys: string[],
  options: Options): Promise<Round> {
  const healthy = await measure(server, keys, options, 'Redis healthy');
  const returnsBefore = returnsLogged(server);
  redis.pause();
  try {
    const firstPausedCallMs = await timedCall(server, keys[0]!);
    const paused = await measure(server, keys, options, 'Redis paused');
    return { healthy, paused, firstPausedCallMs };
  } finally {
    redis.resume();
    await waitUntilBackInRedis(server, returnsBefore);
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function formatRow(name: string, figures: Figures[]): string {
  const at = (pick: (figure: Figures) => number) => median(figures.map(pick)).toFixed(0);
  return `| ${name} | ${at((f) => f.requestsPerSecond)} | ${at((f) => f.p50Ms)} | ` +
    `${at((f) => f.p99Ms)} | ${figures.map((figure) => figure.p99Ms).join(' / ')} |`;
}

async function main() {
  const options = readOptions();
  const loadAverages = () => os.loadavg().map((average) => average.toFixed(2)).join(', ');
  const loadBefore = loadAverages();
  const database = await createTestDatabase();
  const redis = await startPrivateRedis();
  let server: ServerProcess | null = null;
  try {
    process.stderr.write(`seeding ${options.keys} accounts…\n`);
    const { keys } = await seedKeys(database.env, options.keys);
    server = startServerProcess({
      port: await freePort(),
      env: { ...process.env, ...database.env, REDIS_URL: redis.url, LOG_LEVEL: 'info',
        RATE_LIMIT_OVERRIDES: JSON.stringify({ 'points.retrieve': UNTHROTTLED_POLICY }) },
      args: ['--no-workers'],
    });
    await waitUntilReady(server, READY);
    // Warms up the routes, the key cache and the connection before anything is measured.
    await measure(server, keys, { ...options, duration: 2 }, 'warm-up');
    const rounds: Round[] = [];
    for (let index = 0; index < options.runs; index += 1) {
      rounds.push(await round(server, redis, keys, options));
      process.stderr.write(`round ${index + 1}/${options.runs}: p99 healthy ` +
        `${rounds[index]!.healthy.p99Ms} ms, paused ${rounds[index]!.paused.p99Ms} ms\n`);
    }
    process.stdout.write([
      `${new Date().toISOString()}, Node.js ${process.version}, ${os.cpus().length} cores, ` +
        `${usingPostgres ? 'PostgreSQL' : 'embedded'}, ${options.keys} keys, ` +
        `${options.connections} connections, ` +
        `${options.runs} rounds of 2 × ${options.duration} s, ` +
        `load average (1, 5, 15 min) ${loadBefore} before, ${loadAverages()} after`,
      '',
      '| GET /v1/points | req/s | p50 ms | p99 ms | p99 of every round, ms |',
      '|---|--:|--:|--:|---|',
      formatRow('Redis healthy', rounds.map((entry) => entry.healthy)),
      formatRow('Redis paused, after the first timeout', rounds.map((entry) => entry.paused)),
      '',
      `The first call after each pause: ${rounds.map((entry) =>
        entry.firstPausedCallMs.toFixed(0)).join(' / ')} ms.`,
      '',
    ].join('\n'));
  } finally {
    if (server) await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS });
    await redis.stop();
    await database.drop();
  }
}

await main();
