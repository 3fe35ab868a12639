import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

// The dashboard's static files, all served by this server (no CDN): its stylesheet, htmx (from
// the pinned htmx.org package) and its own script, which esbuild bundles from client/ on the
// first request for it. Each is addressed with a hash of its content, so it can be cached for
// good and a new version is a new address.

const require = createRequire(import.meta.url);

type Asset = { contentType: string; body: () => Promise<string> | string; version: string };

const hash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12);

const stylesheet = readFileSync(new URL('./assets/dashboard.css', import.meta.url), 'utf8');
const htmx = readFileSync(require.resolve('htmx.org/dist/htmx.min.js'), 'utf8');
const SCRIPT_ENTRY = fileURLToPath(new URL('./client/main.ts', import.meta.url));
// What the script is bundled from: every file of client/ and the domain code it imports (the
// line editor's arithmetic), so that a change to any of them is a new address.
const SCRIPT_SOURCES = [
  ...readdirSync(new URL('./client/', import.meta.url)).sort()
    .map((name) => new URL(`./client/${name}`, import.meta.url)),
  new URL('../domain/tax-amounts.ts', import.meta.url),
];

let script: Promise<string> | null = null;

async function bundleScript(): Promise<string> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({ entryPoints: [SCRIPT_ENTRY], bundle: true, write: false,
    format: 'esm', platform: 'browser', target: 'es2020', minify: true, logLevel: 'silent',
    jsx: 'automatic', jsxImportSource: 'preact' });
  return result.outputFiles[0]!.text;
}

const ASSETS: Record<string, Asset> = {
  'dashboard.css': { contentType: 'text/css; charset=utf-8', body: () => stylesheet,
    version: hash(stylesheet) },
  'htmx.min.js': { contentType: 'text/javascript; charset=utf-8', body: () => htmx,
    version: hash(htmx) },
  'dashboard.js': { contentType: 'text/javascript; charset=utf-8',
    body: () => {
      script ??= bundleScript().catch((error: unknown) => {
        script = null;
        throw error;
      });
      return script;
    },
    version: hash(SCRIPT_SOURCES.map((source) => readFileSync(source, 'utf8')).join('\n')) },
};

const pathOf = (name: string) => `/dashboard/assets/${name}?v=${ASSETS[name]!.version}`;

export const ASSET_PATHS = {
  stylesheet: pathOf('dashboard.css'),
  htmx: pathOf('htmx.min.js'),
  script: pathOf('dashboard.js'),
};

export function findAsset(name: string): Asset | null {
  return Object.hasOwn(ASSETS, name) ? ASSETS[name]! : null;
}
