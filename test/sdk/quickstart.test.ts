// examples/quickstart.ts, the program of docs/quickstart.md, runs end to end against a real
// `etax serve` started as the quick start says (private webhook targets allowed): from a new
// account's test key to a transmitted invoice, a verified webhook and a PDF on disk.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountWithCli } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  freePort,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const run = promisify(execFile);
const EXAMPLE = join(import.meta.dirname, '../../examples/quickstart.ts');
const READY = { attemptsMax: 240, pollIntervalMs: 250 };
// Far shorter than the program's own 60 s waits, far longer than ending takes.
const EXIT_AFTER_LAST_LINE_MS = 15_000;

let database: TestDatabase;
let server: ServerProcess;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  database = await createTestDatabase();
  env = { ...process.env, ...database.env, WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
    // The cancel window is not what this test is about.
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' };
  server = startServerProcess({ port: await freePort(), env });
  await waitUntilReady(server, READY);
});
afterAll(async () => {
  if (server) await stopServerProcess(server, { exitWaitMs: 30_000 });
  await database?.drop();
});

describe('the quick start program', () => {
  it('goes from a test key to a transmitted invoice, a verified webhook and a PDF', async () => {
    const account = await createAccountWithCli(env);
    const pdfPath = join(mkdtempSync(join(tmpdir(), 'etax-quickstart-')), 'invoice.pdf');
    const { stdout } = await run(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env: { ...process.env, ETAX_API_KEY: account.keys.test, ETAX_BASE_URL: server.baseUrl,
        ETAX_PDF_PATH: pdfPath },
      timeout: 120_000,
    });
    const steps = stdout.trim().split('\n');
    expect(steps.map((line) => line.split(' ').slice(0, 2).join(' '))).toEqual([
      '✓ issuer', '✓ sandbox', '✓ webhook', '✓ issued', '✓ status', '✓ webhook', '✓ PDF']);
    expect(stdout).toContain('✓ status TRANSMITTED');
    expect(stdout)
      .toMatch(/✓ webhook TAX_INVOICE_ISSUANCE_SUCCESS for txi_\S+, signature verified/);
    expect(readFileSync(pdfPath).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // Run again, as a reader trying it twice would: the issuer of the first run is used again.
    const again = await run(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env: { ...process.env, ETAX_API_KEY: account.keys.test, ETAX_BASE_URL: server.baseUrl,
        ETAX_PDF_PATH: pdfPath },
      timeout: 120_000,
    });
    expect(again.stdout).toContain('✓ PDF written');
    // Each run removed the endpoint of its own receiver, which closed with the program.
    const endpoints = await fetch(`${server.baseUrl}/v1/webhookEndpoints`,
      { headers: { authorization: basicAuth(account.keys.test) } });
    expect(await endpoints.json()).toMatchObject({ results: [] });
  }, 300_000);

  it('exits when its work is done, with no timer left running', async () => {
    const account = await createAccountWithCli(env);
    const pdfPath = join(mkdtempSync(join(tmpdir(), 'etax-quickstart-')), 'invoice.pdf');
    const child = spawn(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env: { ...process.env, ETAX_API_KEY: account.keys.test, ETAX_BASE_URL: server.baseUrl,
        ETAX_PDF_PATH: pdfPath } });
    const exit = once(child, 'exit');
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    // The last line is printed; the process must then end on its own, not on a timer that
    // fires long after (the program's own waits are 60 s).
    await pollUntil(async () => stdout, (seen) => seen.includes('✓ PDF written'),
      { attemptsMax: 480, intervalMs: 250 });
    const exited = await Promise.race([exit,
      delay(EXIT_AFTER_LAST_LINE_MS).then(() => 'still running')]);
    child.kill('SIGKILL');
    expect(exited).toEqual([0, null]);
  }, 300_000);

  it('refuses a live key before calling anything', async () => {
    const account = await createAccountWithCli(env);
    const failed = await run(process.execPath, ['--import', 'tsx', EXAMPLE], {
      env: { ...process.env, ETAX_API_KEY: account.keys.live, ETAX_BASE_URL: server.baseUrl },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringContaining('test key') });
  });
});
