import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { percentile } from './percentile.ts';

// The listing benchmarks (bench/revenue-expense-feed.ts, bench/bank-transactions.ts): pages of a
// listing read through the whole HTTP stack with fastify.inject, one at a time, from random
// positions, after warm-up reads that are not timed.

export const WARM_UP_READS = 50;

export type Latency = { p50: number; p95: number; p99: number };

export async function measurePageReads(input: {
  server: FastifyInstance;
  authorization: string;
  // How many rows there are to start from, and the page size each read must fill.
  rows: number;
  page: number;
  reads: number;
  // The URL of the page that starts at a row.
  url(position: number): string;
  // The rows of a page's body; `items` unless the listing names them otherwise.
  items?(body: Record<string, unknown[]>): unknown[];
}): Promise<Latency> {
  const items = input.items ?? ((body) => body.items!);
  const timings: number[] = [];
  for (let read = 0; read < input.reads + WARM_UP_READS; read += 1) {
    const position = Math.floor(Math.random() * (input.rows - 3 * input.page));
    const begin = performance.now();
    const response = await input.server.inject({ method: 'GET', url: input.url(position),
      headers: { authorization: input.authorization } });
    const elapsed = performance.now() - begin;
    if (response.statusCode !== 200) throw new Error(response.body);
    if (items(response.json() as Record<string, unknown[]>).length !== input.page) {
      throw new Error('short page');
    }
    if (read >= WARM_UP_READS) timings.push(elapsed);
  }
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95),
    p99: percentile(timings, 0.99) };
}

// The table of a run's scenarios, as RESULTS.md shows it.
export function latencyTable(scenarios: Record<string, Latency>): string[] {
  return ['| scenario | p50 ms | p95 ms | p99 ms |', '|---|--:|--:|--:|',
    ...Object.entries(scenarios).map(([scenario, { p50, p95, p99 }]) =>
      `| ${scenario} | ${p50.toFixed(1)} | ${p95.toFixed(1)} | ${p99.toFixed(1)} |`)];
}
