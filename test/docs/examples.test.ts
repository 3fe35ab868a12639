// The examples of the guides run as written: each guide's shell examples (test/docs/fences.ts
// says which blocks those are) run in order in one bash session, against a real server on a port
// of its own, with ETAX_URL, ETAX_KEY and the other variables the guide names set as it says.
// curl answers a 4xx or 5xx with a failure, so a stale date, a wrong field or a wrong path fails
// here. Dates are computed in the examples themselves (`TZ=Asia/Seoul date +%F`), so they never
// go stale; ports come from the variables, never from an example. The server listens on
// ETAX_DOCS_PORT and the quick start's webhook receiver on ETAX_DOCS_RECEIVER_PORT when they are
// set, on free ports otherwise.
//
// Each guide runs in a working directory of its own, outside the repository, that looks like a
// checkout (its files are links to the repository's): the quick start's `npx etax` and
// `npx tsx examples/…` work as they do in a checkout, while whatever an example writes
// (counterparties.csv, invoice.pdf, npki/) stays in that directory.
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync }
  from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePdf } from '../../bench/certificates/fixtures.ts';
import { SANDBOX_CERTIFICATES } from '../../src/upstream/tax-authority/sandbox.ts';
import { SANDBOX_BUSINESS_NUMBERS } from '../../src/upstream/business-profiles/sandbox.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { freePort } from '../helpers/server-process.ts';
import {
  invoiceBody, issue, registerSupplier, waitForStatus,
} from '../api/tax-invoices/helpers.ts';
import { examples, fences, guides, isShell, readGuide, ROOT, type Fence } from './fences.ts';

type Setup = {
  // The issuer whose SUPPLIER_KEY and ISSUER_ID the guide reads: by default one of number
  // 1234567891 with a registered certificate; null when the guide makes its own.
  issuer?: { identificationNumber: string; certificate: boolean } | null;
  // ISSUANCE_KEY and REFERENCE_ID of a transmitted tax invoice: one for the whole guide, or a
  // new one for each example (each amendment example amends an original of its own).
  invoice?: 'guide' | 'example';
  // Files the guide says its examples read from the working directory.
  files?: () => Promise<Record<string, Buffer>>;
  // Checks what the examples printed against what the guide shows.
  check?: (stdout: string, markdown: string) => void;
  timeoutMs?: number;
};

const DEFAULT_ISSUER = { identificationNumber: '1234567891', certificate: true };
const GUIDE_TIMEOUT_MS = 60_000;
// The quick start runs `etax` and the SDK's program besides its curl calls.
const QUICKSTART_TIMEOUT_MS = 240_000;

// What a guide needs besides an account's test key; a guide not listed needs the default issuer.
const SETUPS: Record<string, Setup> = {
  'docs/idempotency.md': { invoice: 'guide' },
  'docs/tax-invoice-xml.md': { invoice: 'guide' },
  'docs/tax-invoice-amendments.md': { invoice: 'example' },
  // Registers a sandbox certificate of 1248100998 for its issuer.
  'docs/sandbox.md': { issuer: { identificationNumber: '1248100998', certificate: false } },
  'docs/quickstart.md': { issuer: null, timeoutMs: QUICKSTART_TIMEOUT_MS },
  'docs/ko/quickstart.md': { issuer: null, timeoutMs: QUICKSTART_TIMEOUT_MS },
  // certificate.pdf: the sandbox corporation's certificate, as the guide says.
  'docs/certificate-verification.md': { files: async () => {
    const corporation = SANDBOX_CERTIFICATES[SANDBOX_BUSINESS_NUMBERS.corporation]!;
    return { 'certificate.pdf': await certificatePdf({ kind: 'corporate',
      businessRegistrationNumber: corporation.businessRegistrationNumber,
      organizationName: corporation.organizationName,
      representativeName: corporation.representativeName, openedOn: corporation.openedOn,
      corporateRegistrationNumber: corporation.corporateRegistrationNumber,
      address: corporation.address, businessType: corporation.businessType,
      businessItem: corporation.businessItem, issuedOn: '2025-01-15',
      taxOffice: '강남세무서' }) };
  },
  // The answer shown is the answer given: every field read, the source and the verdict.
  check: (stdout, markdown) => {
    const shown = JSON.parse(fences(markdown).find((fence) => fence.language === 'json')!.code) as
      { extracted: unknown; source: string; verification: { result: string; status: unknown } };
    expect(JSON.parse(stdout)).toMatchObject({ extracted: shown.extracted, source: shown.source,
      verification: { result: shown.verification.result,
        status: shown.verification.status } });
  } },
};

// The shell examples a test runs: every one not marked `not run`.
function runnable(markdown: string): Fence[] {
  return examples(markdown).filter((fence) => isShell(fence) && fence.notRun === null);
}

// A working directory that looks like a checkout: a link to every entry of the repository
// (node_modules included), so that what an example writes lands here and not in the repository.
function checkoutLike(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'etax-docs-'));
  for (const entry of readdirSync(ROOT)) {
    if (entry === '.git') continue;
    symlinkSync(path.join(ROOT, entry), path.join(directory, entry));
  }
  return directory;
}

// The repository's changes as git sees them, ignored files aside.
function repositoryStatus(): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'],
    { cwd: ROOT, encoding: 'utf8' });
}

type Run = { code: number | null; stdout: string; stderr: string };

// Runs the blocks in one bash session in `cwd`; curl fails on an HTTP error and says why on
// stderr. The session is a process group of its own, ended with everything it started in the
// background (a webhook receiver) when it ends or runs out of time.
function runBlocks(blocks: string[], options: { cwd: string; env: Record<string, string>;
  timeoutMs?: number }): Promise<Run> {
  const script = ['set -euo pipefail',
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    ...blocks.map((block, index) => `echo "--- block ${index + 1}" >&2\n${block}`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { cwd: options.cwd, detached: true,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? options.cwd,
        // npx runs the checkout's own commands; it must never fetch a package instead.
        npm_config_offline: 'true', npm_config_update_notifier: 'false', ...options.env } });
    let stdout = '';
    let stderr = '';
    let code: number | null = null;
    const endGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group has ended already.
      }
    };
    const timer = setTimeout(() => {
      stderr += `\n(timed out after ${options.timeoutMs} ms)`;
      endGroup();
    }, options.timeoutMs ?? GUIDE_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('exit', (exitCode) => {
      code = exitCode;
      endGroup();
    });
    child.on('close', () => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let app: TestApp;
let baseUrl: string;

beforeAll(async () => {
  // As a reader's server: webhooks may target this machine (the quick start's receiver), and an
  // issued invoice waits before its transmission, as `TAX_INVOICE_TRANSMISSION_DELAY_SECONDS`
  // makes it wait (10 s unless set): attachments are added in that window. 5 s keeps the window
  // and the run short.
  app = await createTestApp({ jobs: true, env: { WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
    TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '5' } });
  const port = Number(process.env.ETAX_DOCS_PORT ?? 0);
  await app.server.listen({ port, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(app.server.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app?.close();
});

async function transmittedInvoice(key: string, supplierKey: string, referenceId: string) {
  const issued = await issue(app, key, supplierKey, invoiceBody(), referenceId);
  expect(issued.statusCode, issued.body).toBe(200);
  const { issuanceKey } = issued.json() as { issuanceKey: string };
  await waitForStatus(app, key, issuanceKey, ['TRANSMITTED']);
  return { ISSUANCE_KEY: issuanceKey, REFERENCE_ID: referenceId };
}

async function runGuide(guide: string): Promise<void> {
  const setup = SETUPS[guide] ?? {};
  const markdown = readGuide(guide);
  const blocks = runnable(markdown).map((fence) => fence.code);
  const account = await app.createAccount();
  const env: Record<string, string> = { ETAX_URL: baseUrl, ETAX_KEY: account.keys.test,
    RECEIVER_PORT: process.env.ETAX_DOCS_RECEIVER_PORT ?? String(await freePort()) };
  const issuer = setup.issuer === undefined ? DEFAULT_ISSUER : setup.issuer;
  if (issuer !== null) {
    const supplier = await registerSupplier(app, account.keys.test, issuer);
    env.SUPPLIER_KEY = supplier.supplierKey;
    env.ISSUER_ID = supplier.issuerId;
  }
  const cwd = checkoutLike();
  try {
    for (const [name, content] of Object.entries(await setup.files?.() ?? {})) {
      writeFileSync(path.join(cwd, name), content);
    }
    const sessions: Array<{ blocks: string[]; env: Record<string, string> }> = [];
    if (setup.invoice === 'example') {
      const invoices = await Promise.all(blocks.map((_, index) =>
        transmittedInvoice(account.keys.test, env.SUPPLIER_KEY!, `docs-${Date.now()}-${index}`)));
      blocks.forEach((block, index) =>
        sessions.push({ blocks: [block], env: { ...env, ...invoices[index] } }));
    } else if (setup.invoice === 'guide') {
      sessions.push({ blocks, env: { ...env, ...await transmittedInvoice(account.keys.test,
        env.SUPPLIER_KEY!, `docs-${Date.now()}`) } });
    } else {
      sessions.push({ blocks, env });
    }
    for (const session of sessions) {
      const run = await runBlocks(session.blocks, { cwd, env: session.env,
        timeoutMs: setup.timeoutMs });
      expect(run.code, `${guide}\n${run.stderr}\n${run.stdout}`).toBe(0);
      setup.check?.(run.stdout, markdown);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

const RUN = guides().filter((guide) => runnable(readGuide(guide)).length > 0);

describe('the examples of the guides', () => {
  it('are all run here, or marked with why they are not', () => {
    const unaccounted = guides().flatMap((guide) => examples(readGuide(guide))
      .filter((fence) => {
        if (fence.notRun !== null) return fence.notRun.length === 0;
        // A console block shows a session with its prompts: it cannot run as it is.
        if (fence.language === 'console') return true;
        // TypeScript that uses the SDK compiles and runs in a project of its own, with the
        // packed SDK (test/sdk/packed.test.ts).
        return !isShell(fence) && fence.language !== 'ts';
      })
      .map((fence) => `${guide}:${fence.line}`));
    expect(unaccounted).toEqual([]);
    expect(RUN).toEqual(expect.arrayContaining(['docs/quickstart.md', 'docs/ko/quickstart.md',
      'docs/reverse-issuance.md', 'docs/sandbox.md', 'docs/tax-invoice-amendments.md',
      'docs/certificate-verification.md', 'docs/tax-invoices.md']));
  });

  it('finds the examples of a guide: its shell blocks when one calls curl, and SDK blocks', () => {
    const markdown = '```sh\ncurl -u "$ETAX_KEY:" "$ETAX_URL/v1/points"\n```\n' +
      '<!-- not run: starts a server -->\n\n```sh\nnpm start\n```\n' +
      '```json\n{"curl ": 1}\n```\n' +
      "```ts\nimport { unwrap } from '@etax/sdk';\n```\n```ts\nconst x = 1;\n```\n";
    expect(examples(markdown).map((fence) => [fence.language, fence.line, fence.notRun]))
      .toEqual([['sh', 1, null], ['sh', 6, 'starts a server'], ['ts', 12, null]]);
    expect(examples('```sh\nnpm start\n```\n')).toEqual([]);
    expect(fences('  ```sh\n  curl x\n  ```\n')).toMatchObject([{ code: '  curl x\n' }]);
  });

  it('fail on an HTTP error, so a wrong example cannot pass', async () => {
    const account = await app.createAccount();
    const cwd = checkoutLike();
    try {
      const run = await runBlocks(['curl -u "$ETAX_KEY:" "$ETAX_URL/v1/points/nowhere"'],
        { cwd, env: { ETAX_URL: baseUrl, ETAX_KEY: account.keys.test } });
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/404/);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('write their files outside the repository', async () => {
    const cwd = checkoutLike();
    try {
      const run = await runBlocks(['printf x > written-by-an-example.txt'], { cwd, env: {} });
      expect(run.code, run.stderr).toBe(0);
      expect(existsSync(path.join(cwd, 'written-by-an-example.txt'))).toBe(true);
      expect(existsSync(path.join(ROOT, 'written-by-an-example.txt'))).toBe(false);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it.each(RUN)('run as written: %s', async (guide) => {
    for (const fence of runnable(readGuide(guide))) {
      // Ports and keys come from the variables, never written into an example.
      expect(fence.code, `${guide}:${fence.line}`)
        .not.toMatch(/localhost:\d+|127\.0\.0\.1:\d+|test_\.\.\.|live_\.\.\./);
    }
    const before = repositoryStatus();
    await runGuide(guide);
    // Nothing an example wrote landed in the repository.
    expect(repositoryStatus()).toBe(before);
  }, QUICKSTART_TIMEOUT_MS + 60_000);
});
