#!/usr/bin/env node
// The build: src/ bundled by esbuild into plain JavaScript under dist/, so that `etax` (and
// `npm start`) load one file instead of compiling some 160 TypeScript modules through tsx on
// every start. npm runs it on `npm install` and `npm ci` (the `prepare` script); bin/etax.js runs
// it again whenever the sources changed since, and falls back to tsx when it cannot.
//
// A build can never be stale: it lives in dist/<fingerprint>/, named after a hash of everything
// it is made from, and bin/etax.js uses only the folder of the sources' current fingerprint.
// Packages stay in node_modules, loaded from there at run time (so PGlite finds its WebAssembly
// files), except the few in BUNDLED_PACKAGES.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync }
  from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
// What a build is made from, besides every file under src/: this recipe, the TypeScript
// settings esbuild reads, and the lock file, which pins the versions of BUNDLED_PACKAGES.
const RECIPE_FILES = ['bin/build.js', 'tsconfig.json', 'package-lock.json'];
// Builds kept besides the newest: a server still running an older build may load one of its
// lazily imported chunks later, so the folder it runs from is not removed at once.
const OLDER_BUILDS_KEPT = 3;
// A build folder still unfinished after this long belongs to a build that died.
const UNFINISHED_BUILD_AGE_MAX_MS = 10 * 60_000;
// A prefix of the SHA-256: 64 bits tell builds of one checkout apart.
const FINGERPRINT_LENGTH = 16;
// Packages bundled into the build rather than loaded from node_modules. Each is plain
// JavaScript that reads no files of its own, and ships as hundreds of small ES modules that Node
// would read, resolve and compile one by one: typebox alone is 683 modules and 0.25 s of every
// start, drizzle-orm 108 modules and 0.1 s; bundled, both take 0.1 s together. Every package
// that imports typebox at run time is bundled with it, so there is one copy of it.
const BUNDLED_PACKAGES = ['typebox', '@fastify/type-provider-typebox', 'drizzle-orm'];

function sourceFiles() {
  const src = path.join(ROOT, 'src');
  const files = readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath ?? entry.path, entry.name)));
  return [...files, ...RECIPE_FILES].sort();
}

// A hash of the path and content of every input. Content, not modification times: any edit
// changes it, and a checkout that touches files without changing them keeps its build.
export function sourceFingerprint() {
  const hash = createHash('sha256');
  for (const file of sourceFiles()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(path.join(ROOT, file)));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, FINGERPRINT_LENGTH);
}

export function buildEntry(fingerprint) {
  return path.join(DIST, fingerprint, 'main.js');
}

// The bundle keeps each module's own import.meta.url, which modules use to find files beside the
// sources (drizzle/ migrations, openapi/): every chunk sits two folders below the root, so the
// source file's URL is computed from the chunk's own, wherever the checkout is.
const keepImportMetaUrl = {
  name: 'keep-import-meta-url',
  setup(build) {
    build.onLoad({ filter: /\.tsx?$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromChunk = `../../${path.relative(ROOT, args.path).split(path.sep).join('/')}`;
      const url = `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
      const loader = args.path.endsWith('.tsx') ? 'tsx' : 'ts';
      return { contents: source.replaceAll('import.meta.url', url), loader };
    });
  },
};

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

// Every import of a package stays an import of node_modules, except BUNDLED_PACKAGES.
const externalPackages = {
  name: 'external-packages',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (BUNDLED_PACKAGES.includes(packageName(args.path))) return undefined;
      return { path: args.path, external: true };
    });
  },
};

async function bundle(outdir) {
  const esbuild = await import('esbuild');
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/main.ts' },
    outdir,
    bundle: true,
    // One chunk per lazily imported command, so each loads only the packages it uses.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    chunkNames: 'chunk-[hash]',
    plugins: [externalPackages, keepImportMetaUrl],
    logLevel: 'warning',
  });
}

// Another process may be cleaning up at the same moment: a folder that is gone is skipped.
function removeOldBuilds(current) {
  const now = Date.now();
  const builds = readdirSync(DIST, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== current)
    .map((entry) => ({
      name: entry.name,
      mtimeMs: statSync(path.join(DIST, entry.name), { throwIfNoEntry: false })?.mtimeMs,
    }))
    .filter((build) => build.mtimeMs !== undefined)
    .sort((a, b) => b.mtimeMs - a.mtimeMs);
  let kept = 0;
  for (const build of builds) {
    const unfinished = build.name.startsWith('.');
    const keep = unfinished ? now - build.mtimeMs < UNFINISHED_BUILD_AGE_MAX_MS
      : kept++ < OLDER_BUILDS_KEPT;
    if (keep) continue;
    rmSync(path.join(DIST, build.name), { recursive: true, force: true });
  }
}

// Builds into a private folder and renames it into place, so a process never sees half a build,
// and two processes building at once both end with the same, whole one.
export async function build(fingerprint = sourceFingerprint()) {
  const final = path.join(DIST, fingerprint);
  if (existsSync(final)) return buildEntry(fingerprint);
  const unfinished = path.join(DIST, `.${fingerprint}-${randomBytes(4).toString('hex')}`);
  mkdirSync(unfinished, { recursive: true });
  try {
    await bundle(unfinished);
    renameSync(unfinished, final);
  } catch (error) {
    rmSync(unfinished, { recursive: true, force: true });
    // Another process finished the same build first: theirs is as good as ours.
    if (!existsSync(final)) throw error;
  }
  removeOldBuilds(fingerprint);
  return buildEntry(fingerprint);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const entry = await build();
  process.stdout.write(`built ${path.relative(process.cwd(), entry)}\n`);
}
