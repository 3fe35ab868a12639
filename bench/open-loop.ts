import { Pool } from 'undici';
import type { RotatedRequest } from './autocannon.ts';
import { percentile } from './percentile.ts';

// The load of a steady arrival rate ("open loop"): request i is due at start + i / rate, whether
// or not earlier ones have been answered, and its latency counts from when it was due. That is
// what a goal such as "1,000 requests a second with p99 ≤ 100 ms" asks about. autocannon keeps a
// fixed number of connections busy instead ("closed loop"), which finds the most the server can
// answer; there every request waits behind the others, so its latency is the number of
// connections divided by the throughput (Little's law) and says more about that number than
// about the server. A request sent late because all connections were busy still counts from
// when it was due, so a server that falls behind shows it in its latency (no coordinated
// omission).

export type SteadyRateInput = {
  url: string;
  // The next request to send, each call a new one (autocannon.ts's rotation).
  nextRequest(): RotatedRequest;
  ratePerSecond: number;
  durationSeconds: number;
  // Connections the load generator may open; requests due while all are busy wait for one.
  connectionsMax: number;
  timeoutSeconds: number;
};

export type SteadyRateFigures = {
  offeredPerSecond: number;
  // Over the time from the first request's due time to the last answer: a little under the
  // offered rate, by the last requests' latency, when the server keeps up.
  answeredPerSecond: number;
  p50Ms: number;
  p97_5Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xxCount: number;
  errorCount: number;
};

const roundedMs = (ms: number) => Math.round(ms * 10) / 10;

export async function runAtSteadyRate(input: SteadyRateInput): Promise<SteadyRateFigures> {
  const timeoutMs = input.timeoutSeconds * 1_000;
  const pool = new Pool(input.url, { connections: input.connectionsMax, pipelining: 1,
    headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
  const total = Math.round(input.ratePerSecond * input.durationSeconds);
  const intervalMs = 1_000 / input.ratePerSecond;
  const latencies = new Float64Array(total);
  let answered = 0;
  let non2xxCount = 0;
  let errorCount = 0;
  const sent: Array<Promise<void>> = [];

  function send(dueAt: number) {
    const { method, path, headers, body } = input.nextRequest();
    sent.push(pool.request({ method: method as 'POST', path, headers, body })
      .then(async (response) => {
        await response.body.dump();
        latencies[answered] = performance.now() - dueAt;
        answered += 1;
        if (response.statusCode < 200 || response.statusCode > 299) non2xxCount += 1;
      }, () => {
        errorCount += 1;
      }));
  }

  const startedAt = performance.now();
  // Request i is due at startedAt + i × intervalMs; `sent.length` is the next i.
  const nextDueAt = () => startedAt + sent.length * intervalMs;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent.length < total && nextDueAt() <= now) send(nextDueAt());
      if (sent.length === total) {
        resolve();
        return;
      }
      setTimeout(tick, Math.max(0, nextDueAt() - performance.now()));
    };
    tick();
  });
  await Promise.all(sent);
  const elapsedSeconds = (performance.now() - startedAt) / 1_000;
  await pool.close();
  const sorted = latencies.slice(0, answered).sort();
  return {
    offeredPerSecond: input.ratePerSecond,
    answeredPerSecond: answered / elapsedSeconds,
    p50Ms: roundedMs(percentile(sorted, 0.5)),
    p97_5Ms: roundedMs(percentile(sorted, 0.975)),
    p99Ms: roundedMs(percentile(sorted, 0.99)),
    maxMs: roundedMs(sorted.at(-1) ?? 0),
    non2xxCount,
    errorCount,
  };
}
