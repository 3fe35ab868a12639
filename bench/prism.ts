// The peer: Stoplight Prism mocking our own openapi/openapi.json, answering the same requests
// from the document's examples with no database, auth store or ledger behind them. It is fetched
// on demand with npx (not a project dependency), at the version below.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const PRISM_PACKAGE = '@stoplight/prism-cli@5.14.2';
// The first start downloads Prism; later starts take seconds.
const READY_TIMEOUT_MS = 5 * 60 * 1_000;
const READY_POLL_INTERVAL_MS = 500;

export type PrismPeer = { baseUrl: string; child: ChildProcess; stop(): Promise<void> };

export async function startPrism(
  root: string,
  port: number,
  probePath: string,
): Promise<PrismPeer> {
  const child = spawn('npx', ['--yes', PRISM_PACKAGE, 'mock', '--host', '127.0.0.1',
    '--port', String(port), path.join(root, 'openapi/openapi.json')], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    // Its own process group, so stopping it stops npx and Prism together.
    detached: true,
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4_000);
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const peer: PrismPeer = {
    baseUrl,
    child,
    async stop() {
      if (child.exitCode !== null || child.pid === undefined) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    },
  };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Prism exited before it was ready:\n${stderr}`);
    try {
      await fetch(`${baseUrl}${probePath}`);
      return peer;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, READY_POLL_INTERVAL_MS));
    }
  }
  await peer.stop();
  throw new Error(`Prism was not ready within ${READY_TIMEOUT_MS} ms:\n${stderr}`);
}
