// The curl examples of the guides run as written: each guide's shell blocks that call curl run in
// order in one bash session, against a real server on a port of its own, with ETAX_URL, ETAX_KEY
// and SUPPLIER_KEY set as the guides say. curl answers a 4xx or 5xx with a failure, so a stale
// date, a wrong field or a wrong path fails here. Dates are computed in the examples themselves
// (`TZ=Asia/Seoul date +%F`), so they never go stale.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  invoiceBody, issue, registerSupplier, waitForStatus,
} from '../api/tax-invoices/helpers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// Guides whose curl examples run here.
const RUNNABLE = ['docs/auth.md', 'docs/points.md', 'docs/bulk-issuance.md',
  'docs/cash-receipts.md', 'docs/drafts.md', 'docs/tax-invoices.md', 'docs/idempotency.md',
  'docs/tax-invoice-xml.md', 'docs/counterparties.md'];
// Guides whose examples read a transmitted tax invoice: ISSUANCE_KEY and REFERENCE_ID.
const NEEDS_INVOICE = new Set(['docs/idempotency.md', 'docs/tax-invoice-xml.md']);
// Guides whose curl examples still use placeholders (`test_...`, ids to fill in) instead of the
// variables above. The list only shrinks: a guide moves to RUNNABLE when its examples run.
const NOT_YET_RUNNABLE = ['docs/certificate-verification.md', 'docs/quickstart.md',
  'docs/reverse-issuance.md', 'docs/sandbox.md', 'docs/tax-invoice-amendments.md',
  'docs/ko/quickstart.md'];

// The shell blocks of a Markdown file that call curl, in order.
export function curlBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^ *```(?:sh|bash|shell)\n([\s\S]*?)^ *```$/gm)]
    .map((match) => match[1]!).filter((block) => /(^|\s|\$\()curl /m.test(block));
}

function guidesWithCurl(): string[] {
  const files = (directory: string): string[] => readdirSync(path.join(ROOT, directory),
    { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? files(path.join(directory, entry.name))
    : entry.name.endsWith('.md') ? [path.join(directory, entry.name)] : []));
  return files('docs').filter((file) =>
    curlBlocks(readFileSync(path.join(ROOT, file), 'utf8')).length > 0).sort();
}

type Run = { code: number | null; stdout: string; stderr: string };

// Runs the blocks in one bash session; curl fails on an HTTP error and says why on stderr.
function runBlocks(blocks: string[], env: Record<string, string>): Promise<Run> {
  const script = ['set -euo pipefail',
    'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
    ...blocks.map((block, index) => `echo "--- block ${index + 1}" >&2\n${block}`)].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let app: TestApp;
let baseUrl: string;

beforeAll(async () => {
  // Transmitted at once, as the guides' examples wait for it.
  app = await createTestApp({ jobs: true,
    env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  baseUrl = `http://127.0.0.1:${address.port}`;
});
afterAll(async () => {
  await app?.close();
});

describe('the curl examples of the guides', () => {
  it('are all runnable or listed as not yet', () => {
    expect(guidesWithCurl()).toEqual([...RUNNABLE, ...NOT_YET_RUNNABLE].sort());
  });

  it('finds the blocks of a guide, and only the shell blocks that call curl', () => {
    const markdown = '```sh\ncurl -u "$ETAX_KEY:" "$ETAX_URL/v1/points"\n```\n' +
      '```sh\nnpm start\n```\n```json\n{"curl ": 1}\n```\n';
    expect(curlBlocks(markdown)).toEqual(['curl -u "$ETAX_KEY:" "$ETAX_URL/v1/points"\n']);
  });

  it('fail on an HTTP error, so a wrong example cannot pass', async () => {
    const account = await app.createAccount();
    const run = await runBlocks(['curl -u "$ETAX_KEY:" "$ETAX_URL/v1/points/nowhere"'],
      { ETAX_URL: baseUrl, ETAX_KEY: account.keys.test });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/404/);
  });

  it.each(RUNNABLE)('run as written: %s', async (guide) => {
    const account = await app.createAccount();
    const supplier = await registerSupplier(app, account.keys.test);
    const blocks = curlBlocks(readFileSync(path.join(ROOT, guide), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      // Ports and keys come from the variables, never written into an example.
      expect(block, guide).not.toMatch(/localhost:\d+|test_\.\.\.|live_\.\.\./);
    }
    const invoice: Record<string, string> = {};
    if (NEEDS_INVOICE.has(guide)) {
      invoice.REFERENCE_ID = `docs-${Date.now()}`;
      const issued = await issue(app, account.keys.test, supplier.supplierKey, invoiceBody(),
        invoice.REFERENCE_ID);
      expect(issued.statusCode, issued.body).toBe(200);
      invoice.ISSUANCE_KEY = (issued.json() as { issuanceKey: string }).issuanceKey;
      await waitForStatus(app, account.keys.test, invoice.ISSUANCE_KEY, ['TRANSMITTED']);
    }
    const run = await runBlocks(blocks, { ETAX_URL: baseUrl, ETAX_KEY: account.keys.test,
      SUPPLIER_KEY: supplier.supplierKey, ...invoice });
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
  }, 60_000);
});
