import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAtSteadyRate } from '../../bench/open-loop.ts';

// The steady-rate load of the benchmarks sends each request when it is due, whether or not
// earlier ones were answered, and counts its latency from then: a server that stalls shows the
// stall in the latency of every request that came due meanwhile.

let server: http.Server | undefined;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

async function listen(handler: http.RequestListener): Promise<string> {
  server = http.createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`;
}

const nextRequest = () => ({ method: 'GET' as const, path: '/', headers: {} });

describe('the steady-rate load', () => {
  it('keeps sending while the server holds its answers, and counts latency from the due time',
    async () => {
      const stallMs = 300;
      const startedAt = performance.now();
      const held: http.ServerResponse[] = [];
      let mostHeld = 0;
      const url = await listen((_request, response) => {
        if (performance.now() - startedAt < stallMs) {
          held.push(response);
          mostHeld = Math.max(mostHeld, held.length);
          return;
        }
        response.end('ok');
      });
      const release = setTimeout(() => held.splice(0).forEach((response) => response.end('ok')),
        stallMs);
      const figures = await runAtSteadyRate({ url, nextRequest, ratePerSecond: 100,
        durationSeconds: 1, connectionsMax: 64, timeoutSeconds: 5 });
      clearTimeout(release);
      // About 30 requests came due during the stall; none waited for an answer to be sent.
      expect(mostHeld).toBeGreaterThanOrEqual(15);
      expect(figures.non2xxCount + figures.errorCount).toBe(0);
      // The first request came due at the start and was answered after the stall.
      expect(figures.maxMs).toBeGreaterThanOrEqual(stallMs - 60);
      expect(figures.p50Ms).toBeLessThan(stallMs / 2);
      expect(figures.offeredPerSecond).toBe(100);
      expect(figures.answeredPerSecond).toBeGreaterThan(50);
    });

  it('counts answers outside 2xx', async () => {
    let count = 0;
    const url = await listen((_request, response) => {
      count += 1;
      response.statusCode = count % 2 === 0 ? 503 : 200;
      response.end();
    });
    const figures = await runAtSteadyRate({ url, nextRequest, ratePerSecond: 50,
      durationSeconds: 0.4, connectionsMax: 8, timeoutSeconds: 5 });
    expect(count).toBe(20);
    expect(figures.non2xxCount).toBe(10);
    expect(figures.errorCount).toBe(0);
  });

  it('counts a request the server never answers as an error', async () => {
    const url = await listen((request) => request.socket.destroy());
    const figures = await runAtSteadyRate({ url, nextRequest, ratePerSecond: 20,
      durationSeconds: 0.2, connectionsMax: 4, timeoutSeconds: 1 });
    expect(figures.errorCount).toBe(4);
    expect(figures.answeredPerSecond).toBe(0);
  });
});
