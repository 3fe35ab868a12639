// The SDK as an integrator installs it: `npm pack` of sdk/, unpacked into a project of its own
// outside the repository (no path mapping to the sources, no workspace link), where every
// TypeScript example of the SDK's README and every SDK example of the guides (test/docs/fences.ts
// finds them) compiles with `tsc --strict`, and the programs among them run against a real
// server. The repository's own tests import the sources, which would hide a package that ships
// without its types.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync }
  from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerSupplier } from '../api/tax-invoices/helpers.ts';
import { examples, guides, readGuide } from '../docs/fences.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Packing builds the SDK (its prepare script runs tsc); compiling runs tsc again.
const STEP_TIMEOUT_MS = 120_000;

// What the SDK offers besides the typed client, each used by an example of its README.
const README_USES = ['bulkIssueTaxInvoices', 'getTaxInvoiceBulk', 'saveTaxInvoiceDraft',
  'issueDraft', "'/v1/counterparties'", 'addTaxInvoiceAttachments', 'listTaxInvoiceAttachments',
  'validateTaxInvoice', 'issueTaxInvoice', 'issueStatus', 'paginate', 'downloadTaxInvoicePdf',
  'verifyWebhookSignature'];

let project = '';
let app: TestApp;
let readme: string[] = [];
// The SDK examples of the guides, by the file each is compiled as.
let guideExamples: Record<string, string> = {};

// The TypeScript blocks of a Markdown page, in order.
function typeScriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

// A compiled example run with a new account's test key and an issuer of 1234567891; its stdout.
async function runExample(file: string): Promise<string> {
  const { keys } = await app.createAccount();
  const { supplierKey } = await registerSupplier(app, keys.test);
  const port = (app.server.server.address() as AddressInfo).port;
  const { stdout } = await run(process.execPath, [path.join(project, 'out', file)], {
    cwd: project, timeout: STEP_TIMEOUT_MS,
    env: { PATH: process.env.PATH, ETAX_API_KEY: keys.test, SUPPLIER_KEY: supplierKey,
      ETAX_BASE_URL: `http://127.0.0.1:${port}` } });
  return stdout;
}

// The packed package unpacked into node_modules/@etax/sdk, as `npm install <tarball>` lays it
// out. Its dependencies, TypeScript and Node's types are linked from the repository's
// node_modules: the registry is not reached, and what is checked is the package's own content.
async function installPackedSdk(into: string): Promise<string> {
  const { stdout } = await run('npm', ['pack', './sdk', '--pack-destination', into, '--json'],
    { cwd: ROOT, timeout: STEP_TIMEOUT_MS });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const scope = path.join(into, 'node_modules/@etax');
  mkdirSync(scope, { recursive: true });
  await run('tar', ['xzf', path.join(into, filename), '-C', scope]);
  const installed = path.join(scope, 'sdk');
  await run('mv', [path.join(scope, 'package'), installed]);
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as
    { dependencies?: Record<string, string> };
  const links = [...Object.keys(manifest.dependencies ?? {}), 'typescript', '@types/node'];
  for (const name of links) {
    const target = path.join(into, 'node_modules', name);
    mkdirSync(path.dirname(target), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules', name), target);
  }
  return installed;
}

beforeAll(async () => {
  project = mkdtempSync(path.join(tmpdir(), 'etax-sdk-project-'));
  const installed = await installPackedSdk(project);
  writeFileSync(path.join(project, 'package.json'),
    JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
  writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true,
    noUncheckedIndexedAccess: true, types: ['node'], outDir: 'out' }, include: ['*.ts'] }));
  readme = typeScriptBlocks(readFileSync(path.join(installed, 'README.md'), 'utf8'));
  readme.forEach((block, index) => writeFileSync(path.join(project, `readme-${index}.ts`), block));
  guideExamples = Object.fromEntries(guides().flatMap((guide) => examples(readGuide(guide))
    .filter((fence) => fence.language === 'ts' && fence.notRun === null)
    .map((fence) => [`${guide.replace(/[/.]/g, '-')}-${fence.line}.ts`, fence.code])));
  for (const [file, code] of Object.entries(guideExamples)) {
    writeFileSync(path.join(project, file), code);
  }
  // With its workers, as a server runs: issuers' certificates are checked by a job.
  app = await createTestApp({ jobs: true });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
}, STEP_TIMEOUT_MS * 2);
afterAll(async () => {
  await app?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed SDK in a project of its own', () => {
  it('carries its types: every example compiles with tsc --strict', async () => {
    const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', project],
      { cwd: project, timeout: STEP_TIMEOUT_MS }).catch((error: { stdout: string }) => error);
    expect(compiled.stdout).toBe('');
    expect(readme[0]).toContain("etax.GET('/v1/points')");
    expect(Object.keys(guideExamples).filter((file) => file.startsWith('docs-bulk-issuance')))
      .toHaveLength(1);
  }, STEP_TIMEOUT_MS);

  it('shows in its README what it offers besides the client', () => {
    expect(README_USES.filter((name) => !readme.some((block) => block.includes(name))))
      .toEqual([]);
  });

  it('runs the first call against a server', async () => {
    expect(await runExample('readme-0.js')).toMatch(/^\d+ points\n$/);
  });

  it('runs the README example of counterparties, validation, attachments, drafts and bulks',
    async () => {
      const last = `readme-${readme.length - 1}.js`;
      expect(readme.at(-1)).toContain('bulkIssueTaxInvoices');
      expect(await runExample(last)).toBe(
        '100 points, 1 attachment, draft ISSUED, bulk 2/2 accepted\n');
    });

  it('runs the SDK examples of the guides against a server', async () => {
    for (const file of Object.keys(guideExamples)) {
      expect(await runExample(file.replace(/\.ts$/, '.js')), file).toMatch(/\S/);
    }
  });
});
