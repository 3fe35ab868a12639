// The revenue and expense feed over 1,000,000 stored invoices of one account on PostgreSQL
// (docs/revenue-expense.md § Performance): pages of 100 read through the whole HTTP stack
// (authentication, plan check, validation, rate limiter, route, store) with fastify.inject, from
// random cursors across the feed, unfiltered and filtered by direction. The rows are generated
// in the database with generate_series, so the set-up takes seconds, not an import.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:feed
//   BENCH_FEED_ROWS=200000 BENCH_FEED_READS=500 …   (smaller runs)
//
// Appends its section to bench/RESULTS.md (between its markers, replaced on every run).
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { latencyTable, measurePageReads, WARM_UP_READS } from './page-reads.ts';
import { createScratchDatabase } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

const ROWS = Number(process.env.BENCH_FEED_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_FEED_READS ?? 2_000);
const PAGE = 100;
const RESULTS = path.resolve(import.meta.dirname, 'RESULTS.md');
const SECTION = 'results:revenue-expense-feed';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server');
const scratch = await createScratchDatabase(serverUrl, 'etax_bench_feed');
const url = scratch.url;

let app: Awaited<ReturnType<typeof createApp>> | undefined;
try {
  app = await createApp(loadConfig({ DATABASE_URL: url, REDIS_URL: undefined,
    LOG_LEVEL: 'warn', WORKERS_ENABLED: 'false',
    RATE_LIMIT_OVERRIDES: JSON.stringify({ 'revenueExpenses.taxInvoices.list':
      { limit: 1_000_000, windowSeconds: 60 } }) }));
  await app.server.ready();
  const server = app.server;
  const account = await app.platform.accounts.createAccount({ name: 'Bench', plan: 'STANDARD' });
  const { db } = app.platform.database;
  const started = performance.now();
  await db.execute(sql`
    insert into revenue_expense_invoices (account_id, environment, direction, source,
      approval_number, issuance_key, write_date, issue_date, counterpart_number,
      counterpart_name, supply_cost, tax, total_amount, tax_type, amendment_reason,
      original_approval_number, status, late, content_hash, change_sequence, changed_at)
    select ${account.accountId}, 'test', case when n % 2 = 0 then 'SALES' else 'PURCHASE' end,
      'COLLECTED', lpad(n::text, 24, '0'), null,
      date '2024-01-01' + (n % 900), date '2024-01-01' + (n % 900) + 1, '2208162517',
      '주식회사 상대방 ' || (n % 1000), 10000 * (1 + n % 5000), 1000 * (1 + n % 5000),
      11000 * (1 + n % 5000), 'TAXABLE', null, null, 'TRANSMITTED', false, md5(n::text), n,
      now()
    from generate_series(1, ${ROWS}) as n`);
  await db.execute(sql`insert into revenue_expense_change_counters
    values (${account.accountId}, 'test', ${ROWS})`);
  await db.execute(sql`analyze revenue_expense_invoices`);
  const loadSeconds = (performance.now() - started) / 1000;
  const authorization = `Basic ${Buffer.from(`${account.keys.test}:`).toString('base64')}`;

  const measure = (query: (position: number) => string) => measurePageReads({ server,
    authorization, rows: ROWS, page: PAGE, reads: READS,
    url: (position) => `/v1/revenueExpenses/taxInvoices?${query(position)}` });
  // A cursor as the server writes it for the account's feed (platform/cursor.ts).
  const feed = { list: 'revenueExpenses.taxInvoices.list',
    scope: { accountId: account.accountId, environment: 'test' as const } };
  const cursor = (position: number) => app!.cursors.encode(feed, [position]);
  const scenarios = {
    'page of 100 from a random cursor': await measure((position) =>
      `limit=${PAGE}&cursor=${cursor(position)}`),
    'page of 100, direction=SALES': await measure((position) =>
      `limit=${PAGE}&direction=SALES&cursor=${cursor(position)}`),
  };
  // The database's own time for one page, apart from the process and the machine's load.
  const plan = await db.execute(sql`explain (analyze, format json)
    select * from revenue_expense_invoices where account_id = ${account.accountId}
      and environment = 'test' and change_sequence > ${Math.floor(ROWS / 2)}
    order by change_sequence limit ${PAGE + 1}`);
  const planRows = ('rows' in plan ? plan.rows : plan) as Array<Record<string, unknown>>;
  type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };
  const explained = (planRows[0]!['QUERY PLAN'] as Array<{ 'Execution Time': number;
    Plan: PlanNode }>)[0]!;
  const node = explained.Plan.Plans?.[0] ?? explained.Plan;
  const load = os.loadavg()[0]!.toFixed(2);
  const lines = ['## Revenue and expense feed (PostgreSQL)', '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node.js ${process.version}`,
    `- ${ROWS.toLocaleString('en-US')} invoices of one account, generated with generate_series ` +
      `in ${loadSeconds.toFixed(1)} s; ${READS} reads per scenario after ${WARM_UP_READS} ` +
      'warm-up reads, one at a time, through fastify.inject (authentication, plan check, ' +
      'validation, rate limiter, route, store; no network)',
    `- System load average (1 min) at the end: ${load} on ${os.cpus().length} cores`,
    `- One page in the database (EXPLAIN ANALYZE): ${explained['Execution Time'].toFixed(2)} ms, ` +
      `${node['Node Type']}${'Index Name' in node ? ` on ${String(node['Index Name'])}` : ''}`,
    '- Target: p95 ≤ 50 ms per page of 100', '',
    ...latencyTable(scenarios)];
  const section = marked(SECTION, lines);
  writeResultsSection(RESULTS, SECTION, section);
  process.stdout.write(`${section}\n`);
} finally {
  await app?.close();
  await scratch.drop();
}
