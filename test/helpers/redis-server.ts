import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './server-process.ts';
import { pollUntil } from './poll.ts';

// A redis-server child process of the caller's own, on a free port, that a test or the
// benchmark may pause (SIGSTOP: the connection stays open and nothing answers), kill (SIGKILL:
// connections are refused) and start again on the same port. The machine's shared Redis is
// never paused or killed: other test runs count on it.

// Bounds the wait for a started redis-server to answer PING: 100 × 50 ms.
const READY_POLL = { attemptsMax: 100, intervalMs: 50 };

export type PrivateRedis = {
  url: string;
  pause(): void;
  resume(): void;
  // Ends the process at once, as a crash would; its counters are gone (no persistence).
  kill(): Promise<void>;
  // Starts a new process on the same port and waits until it answers.
  restart(): Promise<void>;
  stop(): Promise<void>;
};

async function answersPing(port: number): Promise<boolean> {
  const client = new Redis({
    port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0,
    retryStrategy: () => null, connectTimeout: 500,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;

  async function start() {
    child = spawn('redis-server', [
      '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    ], { stdio: 'ignore' });
    const ready = await pollUntil(() => answersPing(port), Boolean, READY_POLL);
    if (!ready) throw new Error(`redis-server on port ${port} did not answer PING`);
  }

  async function kill() {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    // A paused process must be able to act on SIGKILL as well; the kernel sees to that.
    running.kill('SIGKILL');
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    pause: () => child?.kill('SIGSTOP'),
    resume: () => child?.kill('SIGCONT'),
    kill,
    restart: start,
    stop: kill,
  };
}
