// The dashboard's monthly books page over 1,000,000 entries of one account on PostgreSQL
// (docs/dashboard.md § Books): the page of a year (twelve months of sales and purchases: counts,
// supply, tax, totals, and the latest collections) read through the whole stack with
// fastify.inject: the session cookie, the router's checks, the plan gate, the page's service
// call (the month totals the invoices' triggers keep: 24 rows for a year), the render of the
// layout. The entries are generated in the database with
// generate_series over 1,000 days, so the set-up takes seconds, not an import; a year holds
// about 365,000 of them.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:books
//   BENCH_BOOKS_ROWS=200000 BENCH_BOOKS_READS=200 …   (smaller runs)
//
// Writes its section of bench/RESULTS.md (between its markers, replaced on every run).
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createUsersService } from '../src/dashboard/users/service.ts';
import { percentile } from './percentile.ts';
import { latencyTable, type Latency } from './page-reads.ts';
import { createScratchDatabase } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

const ROWS = Number(process.env.BENCH_BOOKS_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_BOOKS_READS ?? 500);
const WARM_UP = 20;
const DAYS = 1_000;
const FIRST_DAY = '2024-01-01';
const RESULTS = path.resolve(import.meta.dirname, 'RESULTS.md');
const SECTION = 'results:dashboard-books';
const PASSWORD = 'bench-books-password';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server');
const scratch = await createScratchDatabase(serverUrl, 'etax_bench_books');

type Server = Awaited<ReturnType<typeof createApp>>['server'];

// Signs in as a browser does and returns the session cookie.
async function signIn(server: Server, email: string): Promise<string> {
  const form = await server.inject({ method: 'GET', url: '/dashboard/sign-in',
    headers: { host: 'localhost' } });
  const token = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
  const pre = form.cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  const answer = await server.inject({ method: 'POST', url: '/dashboard/sign-in',
    headers: { host: 'localhost', origin: 'http://localhost', cookie: pre,
      'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ _csrf: token, email, password: PASSWORD }).toString() });
  if (answer.statusCode !== 303) throw new Error(`sign-in: ${answer.statusCode}`);
  const session = answer.cookies.find((cookie) => cookie.name.endsWith('etax_session'));
  if (!session) throw new Error('no session cookie');
  return `${session.name}=${session.value}`;
}

async function measure(server: Server, cookie: string, url: (read: number) => string):
  Promise<Latency> {
  const timings: number[] = [];
  for (let read = 0; read < READS + WARM_UP; read += 1) {
    const begin = performance.now();
    const response = await server.inject({ method: 'GET', url: url(read),
      headers: { host: 'localhost', cookie } });
    const elapsed = performance.now() - begin;
    if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${url(read)}`);
    if (read >= WARM_UP) timings.push(elapsed);
  }
  timings.sort((a, b) => a - b);
  return { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95),
    p99: percentile(timings, 0.99) };
}

let app: Awaited<ReturnType<typeof createApp>> | undefined;
try {
  app = await createApp(loadConfig({ DATABASE_URL: scratch.url, REDIS_URL: undefined,
    LOG_LEVEL: 'warn', WORKERS_ENABLED: 'false' }));
  await app.server.ready();
  const { server } = app;
  const account = await app.platform.accounts.createAccount({ name: 'Bench', plan: 'STANDARD' });
  const email = `books-${Date.now()}@bench.example`;
  await createUsersService({ db: app.platform.database.db, accounts: app.platform.accounts })
    .createUser({ accountId: account.accountId, email, role: 'viewer', password: PASSWORD });
  const { db } = app.platform.database;
  const started = performance.now();
  await db.execute(sql`
    insert into revenue_expense_invoices (account_id, environment, direction, source,
      approval_number, issuance_key, write_date, issue_date, counterpart_number,
      counterpart_name, supply_cost, tax, total_amount, tax_type, amendment_reason,
      original_approval_number, status, late, content_hash, change_sequence, changed_at)
    select ${account.accountId}, 'test', case when n % 3 = 0 then 'PURCHASE' else 'SALES' end,
      'COLLECTED', lpad(n::text, 24, '0'), null,
      ${FIRST_DAY}::date + (n % ${DAYS}), ${FIRST_DAY}::date + (n % ${DAYS}) + 1, '2208162517',
      '주식회사 상대방 ' || (n % 1000), 10000 * (1 + n % 5000), 1000 * (1 + n % 5000),
      11000 * (1 + n % 5000), 'TAXABLE', null, null, 'TRANSMITTED', false, md5(n::text), n,
      now()
    from generate_series(1, ${ROWS}) as n`);
  await db.execute(sql`insert into revenue_expense_change_counters
    values (${account.accountId}, 'test', ${ROWS})`);
  // Statistics, as autovacuum leaves a table that has settled.
  await db.execute(sql`vacuum analyze revenue_expense_invoices`);
  await db.execute(sql`analyze revenue_expense_month_totals`);
  const loadSeconds = (performance.now() - started) / 1000;
  const cookie = await signIn(server, email);
  const years = [2024, 2025, 2026];
  const scenarios = {
    'books page of a year (12 months, both directions), years in turn': await measure(server,
      cookie, (read) => `/dashboard/books?year=${years[read % years.length]}`),
    'invoices behind one month\'s figure (first page of 100)': await measure(server, cookie,
      (read) => `/dashboard/books/entries?month=2025-${String((read % 12) + 1).padStart(2, '0')}` +
        '&direction=SALES'),
  };
  // The query behind the page's figures: the month totals the invoices' triggers keep.
  const plan = await db.execute(sql`explain (analyze, format json)
    select * from revenue_expense_month_totals where account_id = ${account.accountId}
      and environment = 'test' and month >= '2025-01-01' and month < '2026-01-01'
    order by month, direction`);
  const planRows = ('rows' in plan ? plan.rows : plan) as Array<Record<string, unknown>>;
  type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };
  const explained = (planRows[0]!['QUERY PLAN'] as Array<{ 'Execution Time': number;
    Plan: PlanNode }>)[0]!;
  const scan = (node: PlanNode): PlanNode => (node.Plans?.[0] ? scan(node.Plans[0]) : node);
  const leaf = scan(explained.Plan);
  const yearRows = await db.execute(sql`select count(*)::int as n from revenue_expense_invoices
    where account_id = ${account.accountId} and write_date >= '2025-01-01'
      and write_date < '2026-01-01'`);
  const inYear = (('rows' in yearRows ? yearRows.rows : yearRows) as Array<{ n: number }>)[0]!.n;
  const load = os.loadavg().map((value) => value.toFixed(2)).join(', ');
  const lines = ['## Dashboard: the monthly books page (PostgreSQL)', '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node.js ${process.version}`,
    `- ${ROWS.toLocaleString('en-US')} entries of one account over ${DAYS} days from ` +
      `${FIRST_DAY} (${inYear.toLocaleString('en-US')} in 2025), generated with ` +
      `generate_series (the month totals kept by the insert's trigger) and vacuumed in ` +
      `${loadSeconds.toFixed(1)} s; ${READS} reads per scenario ` +
      `after ${WARM_UP} warm-up reads, one at a time, through fastify.inject (session, router ` +
      'checks, plan gate, service, the whole page rendered; no network)',
    `- System load average (1, 5, 15 min) at the end: ${load} on ${os.cpus().length} cores ` +
      '(the machine was shared with other work during the run)',
    `- The year's figures in the database (EXPLAIN ANALYZE): ` +
      `${explained['Execution Time'].toFixed(1)} ms, ${leaf['Node Type']}` +
      `${'Index Name' in leaf ? ` on ${String(leaf['Index Name'])}` : ''}`,
    '- Target: p95 ≤ 100 ms for the page of a year', '',
    ...latencyTable(scenarios)];
  const section = marked(SECTION, lines);
  writeResultsSection(RESULTS, SECTION, section);
  process.stdout.write(`${section}\n`);
} finally {
  await app?.close();
  await scratch.drop();
}
