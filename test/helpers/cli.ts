import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.ts';

// The `etax` command as an operator runs it, in a child process with the given environment.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/etax.js');
// Migrations on a new embedded database take a few seconds on a busy machine; 60 s bounds a
// hang.
const CLI_TIMEOUT_MS = 60_000;
// generate profiles writes whole data sets to stdout.
const OUTPUT_BYTES_MAX = 64 * 1024 * 1024;

const runFile = promisify(execFile);

// Runs `etax <args>` and returns its stdout; a non-zero exit rejects.
async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await runFile(process.execPath, [CLI, ...args], {
    cwd: ROOT, env, timeout: CLI_TIMEOUT_MS,
  });
  return stdout;
}

export type CreatedAccount = { accountId: string; keys: { test: string; live: string } };

export async function createAccountWithCli(env: NodeJS.ProcessEnv): Promise<CreatedAccount> {
  const output = await runCli(['account', 'create', '--name', 'CLI account', '--json'], env);
  return JSON.parse(output) as CreatedAccount;
}

// Every variable src/config.ts reads. The black-box CLI tests set what they need and inherit
// none of these, so a developer's shell settings cannot change what is tested.
const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL',
  'WORKERS_ENABLED', 'AUTH_CACHE_TTL_MS', 'RESERVATION_TTL_MS', 'BODY_LIMIT_BYTES',
  'DB_POOL_MAX', 'DATABASE_CONNECT_TIMEOUT_SECONDS', 'TEST_SIGNUP_POINTS', 'PRICE_OVERRIDES',
  'RATE_LIMIT_OVERRIDES', 'SMTP_URL', 'MAIL_FROM', 'ENCRYPTION_KEY',
  'ENCRYPTION_PREVIOUS_KEYS', 'REQUEST_RECEIVE_TIMEOUT_MS', 'SHUTDOWN_GRACE_MS',
];

export type CliSettings = Record<string, string | undefined>;

// This process's environment without any configuration variable, plus `settings`.
export function cliEnv(settings: CliSettings): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  for (const [name, value] of Object.entries(settings)) {
    if (value !== undefined) env[name] = value;
  }
  return env;
}

export type CliResult = { code: number; stdout: string; stderr: string };

// Runs `etax <args>` with only `settings` configured and returns how it ended, whatever that was.
export function runEtax(settings: CliSettings, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const options = {
      cwd: ROOT, env: cliEnv(settings), timeout: CLI_TIMEOUT_MS,
      killSignal: 'SIGKILL' as const, maxBuffer: OUTPUT_BYTES_MAX,
    };
    execFile(process.execPath, [CLI, ...args], options, (error, stdout, stderr) => {
      // A process killed by the timeout has no exit code; -1 fails every assertion on it.
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

// Runs a command that must succeed with --json and returns its one line of JSON output. Unless
// `stderrAllowed`, the command must also print nothing on stderr.
export async function runEtaxJson(settings: CliSettings, args: string[],
  options: { stderrAllowed?: boolean } = {}): Promise<Record<string, unknown>> {
  const result = await runEtax(settings, [...args, '--json']);
  if (!options.stderrAllowed) expect(result.stderr).toBe('');
  expect(result.code, result.stderr).toBe(0);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

// A database of its own and an account made on it by `etax account create --name <name>`, for
// the tests of one describe block: made before its first test, dropped after its last.
// `receive` hands the settings the CLI runs with and the account's id to the block's variables.
export function useCliAccount(
  name: string,
  receive: (made: { env: CliSettings; accountId: string }) => void,
): void {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
    const env = { ...database.env };
    const account = await runEtaxJson(env, ['account', 'create', '--name', name]);
    receive({ env, accountId: String(account.accountId) });
  });
  afterAll(async () => {
    await database?.drop();
  });
}
