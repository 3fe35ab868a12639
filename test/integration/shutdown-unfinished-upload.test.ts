// `etax serve` shuts down cleanly whatever its clients do: SIGTERM while an upload is still
// arriving, and will not finish before the receive timeout, closes that connection after
// SHUTDOWN_GRACE_MS and exits 0 instead of waiting for it (docs/operations.md § Shutdown and
// crashes). An embedded database of its own: the process is what is tested, not the database.
import { rmSync } from 'node:fs';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv } from '../helpers/cli.ts';
import { temporaryDataDir } from '../helpers/database.ts';
import { basicAuth } from '../helpers/http.ts';
import { pollUntil } from '../helpers/poll.ts';
import {
  freePort,
  hasExited,
  startServerProcess,
  stopServerProcess,
  waitUntilReady,
  type ServerProcess,
} from '../helpers/server-process.ts';

const START_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 100;
// Below serve's own 25 s limit, after which it exits 1: a stop within this is a clean one.
const EXIT_WAIT_MS = 20_000;
const BOUNDARY = 'etaxShutdownBoundary';

let server: ServerProcess | undefined;
const dataDir = temporaryDataDir('etxs-');

afterAll(() => {
  if (server && !hasExited(server)) server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('SIGTERM during an upload that never finishes', () => {
  it('closes the upload\'s connection after the grace and exits 0', async () => {
    const port = await freePort();
    let stdout = '';
    server = startServerProcess({ port, env: cliEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn',
      SHUTDOWN_GRACE_MS: '1000' }) });
    server.child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    const running = server;
    const key = await pollUntil(async () => {
      if (hasExited(running)) throw new Error(`etax serve exited:\n${running.output()}`);
      return /test key:\s+(test_\S+)/u.exec(stdout)?.[1] ?? null;
    }, (found) => found !== null, { attemptsMax: START_TIMEOUT_MS / POLL_INTERVAL_MS,
      intervalMs: POLL_INTERVAL_MS });
    await waitUntilReady(server, { attemptsMax: START_TIMEOUT_MS / POLL_INTERVAL_MS,
      pollIntervalMs: POLL_INTERVAL_MS });

    // An authenticated upload whose head and first bytes arrive and whose rest never does. It
    // is answered only once the server has read its head: the first answer to a second request
    // on another connection proves the server is serving, the bytes are in its socket already.
    const socket = net.connect(port, '127.0.0.1');
    const closed = new Promise<string>((resolve) => {
      let received = '';
      socket.on('data', (chunk) => {
        received += chunk.toString('utf8');
      });
      socket.on('close', () => resolve(received));
      socket.on('error', () => {});
    });
    const part = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; ` +
      'filename="c.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n';
    socket.write(`POST /v1/businessRegistrationCertificates:verify HTTP/1.1\r\n` +
      `Host: 127.0.0.1\r\nAuthorization: ${basicAuth(key!)}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
      `Content-Length: ${part.length + 100_000}\r\n\r\n${part}`);
    const health = await fetch(`${server.baseUrl}/healthz`);
    expect(health.status).toBe(200);

    const exitCode = await stopServerProcess(server, { exitWaitMs: EXIT_WAIT_MS });
    expect(exitCode, server.output()).toBe(0);
    // The upload's connection was closed by the server, not left open.
    await closed;
    expect(server.output()).not.toContain('shutdown timed out');
  }, START_TIMEOUT_MS + EXIT_WAIT_MS + 10_000);
});
