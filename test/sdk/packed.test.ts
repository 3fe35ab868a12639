// The SDK as an integrator installs it: `npm pack` of sdk/, unpacked into a project of its own
// outside the repository (no path mapping to the sources, no workspace link), where every
// TypeScript example of the SDK's README compiles with `tsc --strict` and the first call runs
// against a real server. The repository's own tests import the sources, which would hide a
// package that ships without its types.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync }
  from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// Packing builds the SDK (its prepare script runs tsc); compiling runs tsc again.
const STEP_TIMEOUT_MS = 120_000;

let project = '';
let app: TestApp;

// The TypeScript blocks of a Markdown page, in order.
function typeScriptBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
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
  const blocks = typeScriptBlocks(readFileSync(path.join(installed, 'README.md'), 'utf8'));
  blocks.forEach((block, index) => writeFileSync(path.join(project, `readme-${index}.ts`), block));
  app = await createTestApp();
  await app.server.listen({ port: 0, host: '127.0.0.1' });
}, STEP_TIMEOUT_MS * 2);
afterAll(async () => {
  await app?.close();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the packed SDK in a project of its own', () => {
  it('carries its types: every README example compiles with tsc --strict', async () => {
    const tsc = path.join(project, 'node_modules/typescript/bin/tsc');
    const compiled = await run(process.execPath, [tsc, '-p', project],
      { cwd: project, timeout: STEP_TIMEOUT_MS }).catch((error: { stdout: string }) => error);
    expect(compiled.stdout).toBe('');
    expect(readFileSync(path.join(project, 'readme-0.ts'), 'utf8'))
      .toContain("etax.GET('/v1/points')");
  }, STEP_TIMEOUT_MS);

  it('runs the first call against a server', async () => {
    const { keys } = await app.createAccount();
    const port = (app.server.server.address() as AddressInfo).port;
    const { stdout } = await run(process.execPath, [path.join(project, 'out/readme-0.js')], {
      cwd: project, timeout: STEP_TIMEOUT_MS,
      env: { PATH: process.env.PATH, ETAX_API_KEY: keys.test,
        ETAX_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(stdout).toMatch(/^\d+ points\n$/);
  });
});
