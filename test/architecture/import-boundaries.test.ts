// The layers of docs/architecture.md, checked on every import of src/ and bench/: code outside an
// area reaches it only through its index.ts; the platform, domain and upstream layers never
// reach into an area; nothing below the dashboard (areas, platform, domain, upstream) reaches
// into it; nothing below the MCP server reaches into it, and it reaches no area (it calls the
// API through the SDK); domain code depends on nothing of ours but other domain code. Method: read
// each file's imports with the TypeScript compiler's own pre-processor and resolve them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

type Import = { from: string; to: string };

function importsOf(file: string): Import[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .filter((imported) => imported.fileName.startsWith('.'))
    .map((imported) => ({
      from: file,
      to: path.normalize(path.join(path.dirname(file), imported.fileName)),
    }));
}

const areaOf = (file: string) => /^src\/areas\/([^/]+)\//.exec(file)?.[1] ?? null;
const layerOf = (file: string) => /^src\/([^/]+)\//.exec(file)?.[1] ?? null;

// Why an import breaks a boundary, or null when it keeps to them.
export function boundaryBroken({ from, to }: Import): string | null {
  const targetArea = areaOf(to);
  const sourceArea = areaOf(from);
  if (targetArea !== null && sourceArea !== targetArea) {
    if (['platform', 'domain', 'upstream'].includes(layerOf(from) ?? '')) {
      return `the ${layerOf(from)} layer must not depend on the ${targetArea} area`;
    }
    if (to !== `src/areas/${targetArea}/index.ts`) {
      return `reach the ${targetArea} area through src/areas/${targetArea}/index.ts`;
    }
  }
  if (layerOf(to) === 'dashboard' && ['platform', 'domain', 'upstream', 'areas']
    .includes(layerOf(from) ?? '')) {
    return `the ${layerOf(from)} layer must not depend on the dashboard`;
  }
  if (layerOf(to) === 'mcp' && ['platform', 'domain', 'upstream', 'areas', 'dashboard']
    .includes(layerOf(from) ?? '')) {
    return `the ${layerOf(from)} layer must not depend on the MCP server`;
  }
  if (layerOf(from) === 'mcp' && targetArea !== null) {
    return 'the MCP server reaches the areas through the API (the SDK), not their code';
  }
  if (layerOf(from) === 'domain' && to.startsWith('src/') && layerOf(to) !== 'domain') {
    return 'domain code depends on other domain code only';
  }
  return null;
}

describe('import boundaries', () => {
  const files = [...sourceFiles('src'), ...sourceFiles('bench')];

  it('finds the source files it checks', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain('src/app.ts');
  });

  it('keeps every import of src/ and bench/ within the layers', () => {
    const broken = files.flatMap(importsOf).flatMap((imported) => {
      const reason = boundaryBroken(imported);
      return reason === null ? [] : [`${imported.from} → ${imported.to}: ${reason}`];
    });
    expect(broken).toEqual([]);
  });

  it('gives every area a front door', () => {
    const areas = readdirSync(path.join(ROOT, 'src/areas'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory()).map((entry) => entry.name);
    const withoutIndex = areas.filter((area) => !files.includes(`src/areas/${area}/index.ts`));
    expect(withoutIndex).toEqual([]);
  });

  it.each([
    [{ from: 'src/app.ts', to: 'src/areas/bank/service.ts' }, /through src\/areas\/bank\/index/],
    [{ from: 'src/areas/bank/index.ts', to: 'src/areas/issuers/store.ts' }, /issuers\/index/],
    [{ from: 'src/platform/jobs.ts', to: 'src/areas/bank/index.ts' }, /platform layer/],
    [{ from: 'src/domain/seed.ts', to: 'src/platform/errors.ts' }, /domain code/],
    [{ from: 'src/dashboard/pages/home.tsx', to: 'src/areas/tax-invoices/store.ts' },
      /through src\/areas\/tax-invoices\/index/],
    [{ from: 'src/platform/auth.ts', to: 'src/dashboard/roles.ts' }, /platform layer/],
    [{ from: 'src/areas/points/index.ts', to: 'src/dashboard/context.ts' }, /areas layer/],
  ])('refuses %o', (imported, reason) => {
    expect(boundaryBroken(imported)).toMatch(reason);
  });

  it.each([
    { from: 'src/app.ts', to: 'src/areas/bank/index.ts' },
    { from: 'src/areas/bank/index.ts', to: 'src/areas/bank/service.ts' },
    { from: 'src/areas/tax-invoices/pdf/paint.ts', to: 'src/areas/tax-invoices/tables.ts' },
    { from: 'src/areas/bank/service.ts', to: 'src/platform/errors.ts' },
    { from: 'src/dashboard/context.ts', to: 'src/areas/tax-invoices/index.ts' },
    { from: 'src/dashboard/pages/keys.tsx', to: 'src/platform/accounts/service.ts' },
    { from: 'src/app.ts', to: 'src/dashboard/mount.ts' },
  ])('allows %o', (imported) => {
    expect(boundaryBroken(imported)).toBeNull();
  });
});
