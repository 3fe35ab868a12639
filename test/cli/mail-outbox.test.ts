// `etax mail outbox`, tested black-box: `node bin/etax.js mail outbox` runs as an operator would,
// against the database of a running app (in embedded mode through its socket). Without
// SMTP_URL a reverse issuance request's approval mail is KEPT, and the command prints it with
// its text, so the operator can read the approval link; --json prints the same as one line,
// --status filters, and bad options exit 2 with a message on stderr.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import {
  APPROVAL_URL_PATTERN,
  createReverseTestApp,
  linkIn,
  newRequest,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = path.join(ROOT, 'bin/etax.js');
const CLI_TIMEOUT_MS = 60_000;

// Every variable src/config.ts reads: none is inherited from the developer's shell.
const CONFIG_VARIABLES = [
  'PORT', 'HOST', 'DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'LOG_LEVEL', 'PUBLIC_BASE_URL',
  'WORKERS_ENABLED', 'AUTH_CACHE_TTL_MS', 'RESERVATION_TTL_MS', 'BODY_LIMIT_BYTES',
  'DB_POOL_MAX', 'TEST_SIGNUP_POINTS', 'PRICE_OVERRIDES', 'RATE_LIMIT_OVERRIDES', 'SMTP_URL',
  'MAIL_FROM',
];

type CliResult = { code: number; stdout: string; stderr: string };

let app: ReverseTestApp;
let issuanceKey: string;

function runCli(args: string[]): Promise<CliResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete env[name];
  Object.assign(env, app.database.env);
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS,
      killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

beforeAll(async () => {
  app = await createReverseTestApp();
  const account = await app.platform.accounts.createAccount({ name: 'Outbox', plan: 'FREE' });
  const supplier = await registerSupplier(app, account.keys.test);
  issuanceKey = await newRequest(app, account.keys.test, supplier.supplierKey);
});
afterAll(async () => {
  await app?.close();
});

type PrintedMail = { id: string; status: string; to: string; subject: string; text: string };

describe('happy', () => {
  it('--json prints the kept approval mail with its link as one line', async () => {
    const result = await runCli(['mail', 'outbox', '--json', '--limit', '5']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
    const { mails } = JSON.parse(result.stdout) as { mails: PrintedMail[] };
    expect(mails).toHaveLength(1);
    expect(mails[0]).toMatchObject({ status: 'KEPT', to: 'supplier@example.co.kr',
      kind: 'TAX_INVOICE_APPROVAL_REQUEST', attemptCount: 0, sentAt: null, lastError: null });
    expect(mails[0]!.text).toContain(issuanceKey);
    expect(linkIn(mails[0]!.text)).toMatch(APPROVAL_URL_PATTERN);
  });

  it('prints the mail for people: status, recipient, subject and text', async () => {
    const result = await runCli(['mail', 'outbox']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^mail_\S+ KEPT TAX_INVOICE_APPROVAL_REQUEST \(created /);
    expect(result.stdout).toContain('To: supplier@example.co.kr');
    expect(result.stdout).toContain('Subject: [TEST] 세금계산서 역발행 요청');
    expect(linkIn(result.stdout)).toMatch(APPROVAL_URL_PATTERN);
  });

  it('--status SENT prints only sent mails: here none', async () => {
    const result = await runCli(['mail', 'outbox', '--status', 'SENT']);
    expect(result).toEqual({ code: 0, stdout: 'the outbox is empty\n', stderr: '' });
  });
});

describe('errors', () => {
  it.each([
    [['--limit', '0'], /--limit/],
    [['--limit', '1001'], /--limit must be at most 1000/],
    [['--limit', 'ten'], /--limit/],
    [['--status', 'LOST'], /--status must be one of PENDING, SENT, KEPT, FAILED/],
  ])('exits 2 with a message and no output for %j', async (args, message) => {
    const result = await runCli(['mail', 'outbox', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^etax: /);
    expect(result.stderr).toMatch(message);
  });
});
