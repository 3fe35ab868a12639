// The server's start loads only what serving needs: a package used by one feature is imported
// where that feature first runs (`await import(...)`), which the build (bin/build.js) turns into a
// chunk of its own. A static import anywhere on the way from `etax serve` would load it on every
// start and slow it (npm run bench:startup). The static import graph is esbuild's, as the build
// makes it.
import * as esbuild from 'esbuild';
import { describe, expect, it } from 'vitest';

// Packages that only some requests, jobs or commands use, each loaded on their first use.
const LOADED_ON_FIRST_USE = [
  // Certificates and key files: registration, signers, the sandbox's identity check.
  '@peculiar/x509', '@peculiar/asn1-schema', '@peculiar/asn1-x509', '@peculiar/asn1-pkcs8',
  'asn1js', 'reflect-metadata',
  // Signed XML, PDFs, images and text recognition.
  'xml-crypto', '@xmldom/xmldom', 'pdfkit', 'unpdf', 'sharp', '@napi-rs/canvas', 'tesseract.js',
  // Spreadsheets and CSV files, mail, the dashboard's assets and two-factor codes.
  'exceljs', 'csv-parse', 'nodemailer', 'esbuild', 'otpauth', 'qrcode',
  // Outside services and the MCP server.
  'undici', '@modelcontextprotocol/sdk',
];

function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

// Every package `from` reaches through static imports only, each with one chain that reaches it.
function staticallyReached(inputs: esbuild.Metafile['inputs'], from: string) {
  const reachedBy = new Map<string, string>([[from, '']]);
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind !== 'import-statement' || reachedBy.has(imported.path)) continue;
      reachedBy.set(imported.path, file);
      if (imported.path in inputs) queue.push(imported.path);
    }
  }
  const chainTo = (target: string) => {
    const chain = [target];
    while (reachedBy.get(chain.at(-1)!)) chain.push(reachedBy.get(chain.at(-1)!)!);
    return chain.join(' ← ');
  };
  return new Map([...reachedBy.keys()].filter((path) => !(path in inputs))
    .map((path) => [packageOf(path), chainTo(path)]));
}

describe('the start of `etax serve`', () => {
  it('imports none of the packages that are loaded on first use', async () => {
    const { metafile } = await esbuild.build({
      entryPoints: ['src/cli/serve.ts'], bundle: true, write: false, metafile: true,
      format: 'esm', platform: 'node', packages: 'external', logLevel: 'silent',
    });
    const reached = staticallyReached(metafile.inputs, 'src/cli/serve.ts');
    expect(reached.has('fastify')).toBe(true);
    const loadedAtStart = LOADED_ON_FIRST_USE.filter((name) => reached.has(name))
      .map((name) => reached.get(name));
    expect(loadedAtStart).toEqual([]);
  });
});
