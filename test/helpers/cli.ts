import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// The `etax` command as an operator runs it, in a child process with the given environment.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/etax.js');
// Migrations on a new embedded database take a few seconds on a busy machine.
const CLI_TIMEOUT_MS = 60_000;

const runFile = promisify(execFile);

// Runs `etax <args>` and returns its stdout; a non-zero exit rejects.
export async function runCli(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
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
