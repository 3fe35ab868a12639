import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

// A real `etax serve` child process, started exactly as an operator would start it, for the
// tests and the benchmark that need the whole server: its own process, port and shutdown.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(ROOT, 'bin/etax.js');
const HOST = '127.0.0.1';
// Enough of a server's output to explain a failed start, without keeping all a long run logs.
const OUTPUT_CHARACTERS_MAX = 20_000;

export type ServerProcess = {
  child: ChildProcess;
  baseUrl: string;
  // The start of the server's stdout and stderr as they came, for error messages.
  output(): string;
};

export type StartOptions = {
  port: number;
  // The child's whole environment: nothing is inherited from this process unless it is here,
  // so a caller can keep a developer's shell settings out. PORT and HOST are set from port.
  env: NodeJS.ProcessEnv;
  // More arguments for `etax serve`, such as --no-workers.
  args?: string[];
  // Options for node itself, e.g. --cpu-prof.
  nodeArgs?: string[];
};

// Ports that nobody listens on now. The child must be told its port up front so that the caller
// knows where to reach it; all listeners stay open until every port is known, so they differ.
export async function freePorts(count: number): Promise<number[]> {
  const listeners = await Promise.all(Array.from({ length: count }, () =>
    new Promise<net.Server>((resolve, reject) => {
      const listener = net.createServer();
      listener.once('error', reject);
      listener.listen(0, HOST, () => resolve(listener));
    })));
  const ports = listeners.map((listener) => (listener.address() as net.AddressInfo).port);
  await Promise.all(listeners.map((listener) =>
    new Promise<void>((resolve) => listener.close(() => resolve()))));
  return ports;
}

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port!;
}

// Spawns `node bin/etax.js serve` on 127.0.0.1:port. Output is piped, not inherited, so a
// passing run stays quiet while a failed start can still show what the server said.
export function startServerProcess(
  { port, env, args = [], nodeArgs = [] }: StartOptions,
): ServerProcess {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'serve', ...args], {
    cwd: ROOT,
    env: { ...env, PORT: String(port), HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    if (output.length < OUTPUT_CHARACTERS_MAX) {
      output = (output + chunk.toString('utf8')).slice(0, OUTPUT_CHARACTERS_MAX);
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { child, baseUrl: `http://${HOST}:${port}`, output: () => output };
}

// Read from the process itself, so it is right even before the 'exit' event has been handled.
export function hasExited(server: ServerProcess): boolean {
  return server.child.exitCode !== null || server.child.signalCode !== null;
}

export type ReadyOptions = { attemptsMax: number; pollIntervalMs: number };

// Polls GET /readyz until it answers 200: a listening port alone does not mean the database is
// reachable and migrated. Gives up at once when the process exits, and after attemptsMax polls.
export async function waitUntilReady(
  server: ServerProcess,
  options: ReadyOptions,
): Promise<void> {
  for (let attempt = 0; attempt < options.attemptsMax; attempt += 1) {
    if (hasExited(server)) {
      throw new Error(`etax serve on ${server.baseUrl} exited before it was ready ` +
        `(exit code ${server.child.exitCode}, signal ${server.child.signalCode}):\n` +
        server.output());
    }
    const response = await fetch(`${server.baseUrl}/readyz`).catch(() => null);
    await response?.arrayBuffer();
    if (response?.status === 200) return;
    await sleep(options.pollIntervalMs);
  }
  throw new Error(
    `etax serve on ${server.baseUrl} was not ready after ${options.attemptsMax} polls:\n` +
    server.output(),
  );
}

export type StopOptions = { exitWaitMs: number };

// Stops the server as a process manager would, with SIGTERM, and returns its exit code (null
// when a signal ended it). A server still running after exitWaitMs is killed, so that no test
// leaves it behind, and the stop fails.
export async function stopServerProcess(
  server: ServerProcess,
  options: StopOptions,
): Promise<number | null> {
  const { child } = server;
  if (hasExited(server)) return child.exitCode;
  const outcome = await new Promise<number | null | 'timeout'>((resolve) => {
    // Cleared on exit: a pending timer would keep a finished benchmark's process alive.
    const timer = setTimeout(() => resolve('timeout'), options.exitWaitMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill('SIGTERM');
  });
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    throw new Error(`etax serve on ${server.baseUrl} (pid ${child.pid}) did not exit after ` +
      `SIGTERM within ${options.exitWaitMs} ms:\n${server.output()}`);
  }
  return outcome;
}
