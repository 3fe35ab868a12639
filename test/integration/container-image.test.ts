// The container image and the compose file (docs/operations.md § The container image). This
// machine cannot pull base images, so the Dockerfile's own steps are run without Docker
// (test/helpers/dockerfile.ts): its stages in folders standing for their roots, from a clean
// copy of the repository as the build context, with the same commands, environment and user.
// The image's CMD then starts as that user, on the embedded database in the image's DATA_DIR
// and on PostgreSQL when the run has one, and its HEALTHCHECK must pass against it and fail
// once it stopped. compose.yaml is checked for what the guide promises of it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import {
  buildStages, copyBuildContext, hostPath, parseDockerfile, type Instruction, type Stage,
} from '../helpers/dockerfile.ts';
import { freePort } from '../helpers/server-process.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD_TIMEOUT_MS = 15 * 60_000;
const READY_WAIT_MS = 120_000;

let workspace: string;
let instructions: Instruction[];
let image: Stage;
const buildLog: string[] = [];

function runAs(user: Stage['user']) {
  // Only root can take another user's identity; elsewhere the steps run as the test's own user.
  return user !== null && process.getuid?.() === 0 ? { uid: user.uid, gid: user.gid } : {};
}

function imageEnv(settings: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH!, ...image.env, ...settings };
}

type Started = { stop(): Promise<number | null>; output(): string; baseUrl: string;
  env: Record<string, string> };

// The image's CMD, as the image's user, in its WORKDIR, with its environment and `settings`.
async function startImage(settings: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const env = imageEnv({ ...settings, PORT: String(port) });
  const [command, ...args] = image.cmd!;
  const child = spawn(command!, args, { cwd: hostPath(image, image.workdir), env,
    stdio: ['ignore', 'pipe', 'pipe'], ...runAs(image.user) });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_WAIT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the image's CMD exited: ${output}`);
    const ready = await fetch(`${baseUrl}/readyz`).then((response) => response.status,
      () => 0);
    if (ready === 200) break;
    if (Date.now() > deadline) throw new Error(`not ready after ${READY_WAIT_MS} ms: ${output}`);
    await sleep(250);
  }
  return {
    baseUrl, env, output: () => output,
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

function healthcheck(env: Record<string, string>): number | null {
  const [command, ...args] = image.healthcheck!;
  return spawnSync(command!, args, { cwd: hostPath(image, image.workdir), env,
    timeout: 30_000, ...runAs(image.user) }).status;
}

beforeAll(() => {
  workspace = mkdtempSync(path.join(os.tmpdir(), 'etx-image-'));
  // The image's user reaches the stages' roots inside it.
  chmodSync(workspace, 0o755);
  const context = path.join(workspace, 'context');
  copyBuildContext(ROOT, context);
  instructions = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const stages = buildStages(instructions, {
    context,
    workspace,
    mappedPaths: ['/app', '/data'],
    // The base image's environment; npm's cache is this machine's, where Docker's would fetch.
    baseEnv: { PATH: process.env.PATH!, HOME: process.env.HOME ?? os.homedir() },
    runTimeoutMs: BUILD_TIMEOUT_MS,
    log: (line) => buildLog.push(line),
  });
  image = stages.at(-1)!;
}, BUILD_TIMEOUT_MS * 2);
// Two copies of the dependencies take minutes to remove on a busy machine.
afterAll(() => {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
}, 600_000);

describe('the Dockerfile', () => {
  it('builds in stages on Node.js 20 with production dependencies, and runs as a user', () => {
    const froms = instructions.filter(({ keyword }) => keyword === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const { args } of froms) expect(args).toMatch(/^node:20-[a-z]+-slim\b/);
    const runs = instructions.filter(({ keyword }) => keyword === 'RUN').map(({ args }) => args);
    expect(runs.some((run) => /^npm ci .*--omit=dev/.test(run))).toBe(true);
    expect(runs.some((run) => run.includes('npm run build'))).toBe(true);
    expect(buildLog).toContain(`RUN ${runs[0]}`);
    expect(image.user).not.toBeNull();
    expect(image.user!.uid).not.toBe(0);
    expect(image.cmd).toEqual(['node', 'bin/etax.js', 'serve']);
    expect(image.healthcheck!.join(' ')).toContain('/readyz');
    // Only production dependencies in the image: no development dependency is installed.
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as
      { devDependencies: Record<string, string> };
    const modules = hostPath(image, `${image.workdir}/node_modules`);
    for (const name of ['vitest', 'eslint', 'typescript', 'playwright-core']) {
      expect(name in manifest.devDependencies).toBe(true);
      expect(existsSync(path.join(modules, name)), name).toBe(false);
    }
  });

  it('starts as its user on the embedded database in DATA_DIR, healthy until it stops',
    async () => {
      const dataDir = hostPath(image, '/data');
      expect(image.env.DATA_DIR).toBe(dataDir);
      const server = await startImage({});
      try {
        // The build made at image build time is the one that runs: no build, no tsx.
        expect(server.output()).not.toMatch(/no build of the current sources/);
        const unauthenticated = await fetch(`${server.baseUrl}/v1/points`);
        expect(unauthenticated.status).toBe(401);
        expect(healthcheck(server.env)).toBe(0);
      } finally {
        expect(await server.stop()).toBe(0);
      }
      expect(healthcheck(server.env)).toBe(1);
    }, 180_000);

  it.runIf(usingPostgres)('starts as its user on PostgreSQL', async () => {
    let database: TestDatabase | undefined;
    try {
      database = await createTestDatabase();
      // A DATA_DIR of the user's own: the image's /data belongs to the embedded test above.
      const dataDir = mkdtempSync(path.join(workspace, 'pg-data-'));
      if (image.user !== null && process.getuid?.() === 0) {
        chownSync(dataDir, image.user.uid, image.user.gid);
      }
      const server = await startImage({ DATABASE_URL: database.env.DATABASE_URL!,
        DATA_DIR: dataDir, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') });
      try {
        expect(healthcheck(server.env)).toBe(0);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      await database?.drop();
    }
  }, 180_000);
});

type ComposeService = {
  build?: unknown; image?: string; command?: string[];
  environment?: Record<string, string>; volumes?: string[];
  depends_on?: Record<string, { condition: string }>; healthcheck?: { test: string[] };
};

describe('compose.yaml', () => {
  const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as
    { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
  const etax = Object.entries(compose.services).filter(([, service]) => service.build === '.');
  const configSource = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');

  it('runs an API-only process and a worker process of the image', () => {
    const commands = etax.map(([, service]) => service.command!.join(' ')).sort();
    expect(commands).toEqual(['node bin/etax.js serve', 'node bin/etax.js serve --no-workers']);
  });

  it('gives every etax process the same settings, each one etax knows', () => {
    const [first, ...others] = etax.map(([, service]) => service.environment!);
    for (const other of others) expect(other).toEqual(first);
    for (const name of Object.keys(first!)) {
      expect(configSource, name).toMatch(new RegExp(`^ {2}${name}: Type\\.`, 'm'));
    }
    expect(first!.DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(first!.REDIS_URL).toBe('redis://redis:6379');
    // Required: compose refuses to start without it.
    expect(first!.ENCRYPTION_KEY).toMatch(/^\$\{ENCRYPTION_KEY:\?/);
  });

  it('starts etax after healthy PostgreSQL and Redis, whose data is in named volumes', () => {
    for (const [, service] of etax) {
      expect(service.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' },
        redis: { condition: 'service_healthy' } });
    }
    const { postgres, redis } = compose.services;
    expect(postgres!.healthcheck!.test).toContain('pg_isready');
    expect(redis!.healthcheck!.test).toContain('redis-cli');
    expect(postgres!.volumes).toContain('postgres-data:/var/lib/postgresql/data');
    expect(redis!.volumes).toContain('redis-data:/data');
    expect(Object.keys(compose.volumes).sort()).toEqual(['postgres-data', 'redis-data']);
  });
});
