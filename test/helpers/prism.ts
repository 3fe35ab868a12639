import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pollUntil } from './poll.ts';
import { freePort } from './server-process.ts';

// Prism's validating proxy (@stoplight/prism-cli) in front of a server: it checks every request
// and every response against an OpenAPI document, offline, and with --errors answers a violation
// with its own error and an `sl-violations` header instead of passing the answer on.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOST = '127.0.0.1';
// Prism reads the document and starts in a few seconds; more on a busy machine.
const START_POLL = { attemptsMax: 600, intervalMs: 100 };
const OUTPUT_CHARACTERS_MAX = 20_000;

export const VIOLATIONS_HEADER = 'sl-violations';

export type PrismProxy = {
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
};

function prismCli(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('@stoplight/prism-cli/package.json', { paths: [ROOT] });
  const { bin } = require(manifest) as { bin: Record<string, string> };
  return path.join(path.dirname(manifest), bin.prism!);
}

export async function startPrismProxy(options: { document: string; upstream: string }):
  Promise<PrismProxy> {
  const port = await freePort();
  const child = spawn(process.execPath, [prismCli(), 'proxy', options.document,
    options.upstream, '--errors', '--host', HOST, '--port', String(port), '--cors', 'false',
    '--verboseLevel', 'warn'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < OUTPUT_CHARACTERS_MAX) output += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://${HOST}:${port}`;
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  // Any answer means it listens; the health probe is in the document, so it passes through.
  const listening = await pollUntil(
    () => fetch(`${baseUrl}/healthz`).then(() => true, () => false),
    (answered) => answered || child.exitCode !== null, START_POLL);
  if (!listening) {
    await stop();
    throw new Error(`Prism did not start:\n${output}`);
  }
  return { baseUrl, output: () => output, stop };
}
