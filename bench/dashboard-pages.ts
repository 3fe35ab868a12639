// The dashboard page scenarios of `npm run bench` (PostgreSQL only): three pages read over an
// account with 1,000,000 rows of what they show, one read at a time through the whole stack
// with fastify.inject (the session cookie, the router's checks, the area's service and store,
// the page rendered in the layout; no network), in the benchmark's own process:
//
// - dashboard-home: the home page over 1,000,000 ledger entries (target p95 ≤ 100 ms);
// - dashboard-tax-invoices: the tax-invoice list over 1,000,000 invoices, with a filter and from
//   a cursor (target p95 ≤ 50 ms);
// - dashboard-books: the monthly books page of a year over 1,000,000 entries (p95 ≤ 100 ms).
//
// The rows are generated in the database with generate_series. Seeding a million tax invoices
// or book entries takes a minute or more, so those two keep their seeded database between runs,
// named after what the seed writes (`etax_bench_dashboard_<name>_<hash>`): the first run seeds
// it, later runs reuse it (the app applies newer migrations when it opens it), and a change of
// the seed makes a new one (dropping the older ones of the same scenario). The home page's
// entries are dated from now, so its seconds of seeding happen on every run, in a database
// dropped afterwards.
// Each scenario writes its own section of bench/RESULTS.md, also on a partial (--only) run.
import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSessionsService } from '../src/dashboard/sessions/service.ts';
import { createUsersService } from '../src/dashboard/users/service.ts';
import type { Latency } from './page-reads.ts';
import { percentile } from './percentile.ts';
import { databaseUrl, withClient } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

type App = Awaited<ReturnType<typeof createApp>>;
// A row's figures: the latency of the timed reads, the first read's time, and the CPU time this
// process spent per timed read (the page's own work, router to rendering, without the database's:
// it barely moves with the machine's load, unlike the latency).
export type PageFigures = Latency & { firstMs: number; cpuMsPerRead: number };
type Seeded = { app: App; accountId: string };

export type PageScenario = {
  // Contains the word --only selects it by.
  name: string;
  section: string;
  title: string;
  // The goal for every row of its table (p95 of the reads).
  p95MsMax: number;
  // What the seed is: part of the kept database's name, so a change makes a new one.
  seedDescription: string;
  // Keeps the seeded database between runs.
  keep: boolean;
  seed(seeded: Seeded): Promise<void>;
  // The measured reads: each table row's figures, and lines said about them.
  measure(reader: PageReader, seeded: Seeded): Promise<{ table: Record<string, PageFigures>;
    notes: string[] }>;
};

const BENCH_EMAIL = 'owner@bench.example';
const BENCH_PASSWORD = 'bench password 1234';
const BENCH_ACCOUNT = 'Bench';

export type PageReader = {
  // Reads `url(read)` READS times after the warm-up, checking each answer; the first read's
  // time too.
  read(url: (read: number) => string, check?: (body: string) => boolean): Promise<PageFigures>;
  reads: number;
  warmUp: number;
};

function pageReader(app: App, cookie: string, reads: number, warmUp: number): PageReader {
  return {
    reads,
    warmUp,
    async read(url, check) {
      const timings: number[] = [];
      let firstMs = 0;
      let cpuMicroseconds = 0;
      for (let read = 0; read < reads + warmUp; read += 1) {
        const address = url(read);
        const cpuBefore = process.cpuUsage();
        const begin = performance.now();
        const response = await app.server.inject({ method: 'GET', url: address,
          headers: { host: 'localhost', cookie } });
        const elapsed = performance.now() - begin;
        const cpu = process.cpuUsage(cpuBefore);
        if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${address}`);
        if (check && !check(response.body)) throw new Error(`unexpected page: ${address}`);
        if (read === 0) firstMs = elapsed;
        if (read >= warmUp) {
          timings.push(elapsed);
          cpuMicroseconds += cpu.user + cpu.system;
        }
      }
      timings.sort((a, b) => a - b);
      return { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95),
        p99: percentile(timings, 0.99), firstMs, cpuMsPerRead: cpuMicroseconds / 1_000 / reads };
    },
  };
}

const rowsOf = <T>(result: unknown) =>
  (typeof result === 'object' && result !== null && 'rows' in result
    ? (result as { rows: T[] }).rows : result as T[]);

// ---- The home page --------------------------------------------------------------------------

const HOME_ENTRIES = Number(process.env.BENCH_HOME_ENTRIES ?? 1_000_000);
// One entry in five is the capture of a reservation; the rest are charges.
const CAPTURE_EVERY = 5;
const HOME_DAYS = 365;

const home: PageScenario = {
  name: 'dashboard-home: GET /dashboard over 1,000,000 ledger entries',
  section: 'results:dashboard-home',
  title: 'Dashboard home page (PostgreSQL)',
  p95MsMax: 100,
  seedDescription: `home/${HOME_ENTRIES}/${CAPTURE_EVERY}/${HOME_DAYS}`,
  keep: false,
  async seed({ app, accountId }) {
    const { db } = app.platform.database;
    const captures = Math.floor(HOME_ENTRIES / CAPTURE_EVERY);
    // Entries from a year ago until now, evenly; a capture's reservation made just before it.
    await db.execute(sql`
      insert into point_reservations (id, account_id, environment, operation, reserved_points,
        status, captured_points, created_at, expires_at)
      select 'rsv_bench_' || n, ${accountId}, 'test',
        (array['bank.holders.inquire', 'businesses.status', 'taxInvoices.issue',
          'cashReceipts.issue', 'documents.issue'])[1 + n % 5], 150, 'captured', 100,
        now() - make_interval(secs => (${captures} - n)
          * ${HOME_DAYS * 86_400 / Math.max(captures, 1)}::float8),
        now()
      from generate_series(1, ${captures}) as n`);
    await db.execute(sql`
      insert into point_ledger_entries (id, account_id, environment, kind, amount_points,
        balance_after_points, reservation_id, memo, created_at)
      select 'ple_bench_' || n, ${accountId}, 'test',
        case when n % ${CAPTURE_EVERY} = 0 then 'capture' else 'charge' end, -10, 1000000,
        case when n % ${CAPTURE_EVERY} = 0 then 'rsv_bench_' || (n / ${CAPTURE_EVERY}) end,
        case when n % ${CAPTURE_EVERY} = 0 then null
          else (array['revenueExpenses.list', 'bankAccounts.transactions.list', 'lookups.tin',
            'connections.sync', 'documents.fetch'])[1 + n % 5] end,
        now() - make_interval(secs => (${HOME_ENTRIES} - n)
          * ${HOME_DAYS * 86_400 / HOME_ENTRIES}::float8)
      from generate_series(1, ${HOME_ENTRIES}) as n`);
    await db.execute(sql`analyze point_ledger_entries`);
    await db.execute(sql`analyze point_reservations`);
  },
  async measure(reader, { app, accountId }) {
    const { db } = app.platform.database;
    const [{ count }] = rowsOf<{ count: string }>(await db.execute(sql`select count(*) as count
      from point_ledger_entries where account_id = ${accountId}
        and created_at >= now() - interval '30 days'`)) as [{ count: string }];
    const figures = await reader.read(() => '/dashboard',
      (body) => body.includes('taxInvoices.issue'));
    return {
      table: { 'home page (balances, 30 days of usage, deadline, failures)': figures },
      notes: [
        `${HOME_ENTRIES.toLocaleString('en-US')} ledger entries of one account's test balance ` +
          `over ${HOME_DAYS} days (one in ${CAPTURE_EVERY} a capture of its own reservation, ` +
          `the rest charges; ${Number(count).toLocaleString('en-US')} in the last 30 days), ` +
          'read as a signed-in owner',
        `The first read, which aggregates the 28 settled days of the ledger before the app ` +
          `keeps them: ${figures.firstMs.toFixed(1)} ms. Later reads aggregate today and ` +
          'yesterday only.',
      ],
    };
  },
};

// ---- The tax-invoice list -------------------------------------------------------------------

const INVOICE_ROWS = Number(process.env.BENCH_TAX_INVOICE_ROWS ?? 1_000_000);
// Documents per write date of the generated account (about four years of them).
const PER_DAY = 700;

// One document as the API stores it; each generated row changes the recipient's name and number.
const INVOICE = {
  date: '2020-01-01', purpose: 'CLAIM',
  supplier: { identificationNumber: '1234567891', taxRegistrationId: null,
    organizationName: '주식회사 이택스', representativeName: '홍길동',
    address: '서울특별시 중구 세종대로 110', businessType: '서비스', businessItem: '소프트웨어',
    manager: { email: 'tax@example.co.kr', name: '김담당', telephone: null } },
  supplied: { identificationNumber: '2208162517', taxRegistrationId: null,
    organizationName: '거래처', representativeName: '이영희', address: null, businessType: null,
    businessItem: null, managers: [{ email: 'account@example.com', name: null,
      telephone: null }] },
  items: [{ date: '2020-01-01', name: '클라우드 사용료', specification: null, quantity: 10,
    unitPrice: 5_000, supplyCost: 50_000, tax: 5_000, description: null }],
  description: null,
};

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

const taxInvoices: PageScenario = {
  name: 'dashboard-tax-invoices: GET /dashboard/tax-invoices over 1,000,000 invoices',
  section: 'results:dashboard-tax-invoices',
  title: 'Dashboard: the tax-invoice list (PostgreSQL)',
  p95MsMax: 50,
  seedDescription: `tax-invoices/${INVOICE_ROWS}/${PER_DAY}/${JSON.stringify(INVOICE)}/2`,
  keep: true,
  async seed({ app, accountId }) {
    // Mostly transmitted, every 20th failed, every 50th canceled; every 97th late; every 9th an
    // amendment; recipients among 5,000 names and numbers.
    await app.platform.database.db.execute(sql`
      insert into tax_invoices (issuance_key, account_id, environment, api_key_id,
        client_reference_id, issuer_id, supplier_key, issuance_type, status, invoice, write_date,
        issue_deadline, late_issuance, counterpart_number, tax_type, supply_cost_total, tax_total,
        total_amount, charged_points, amendment_reason, original_issuance_key,
        original_nts_transaction_id, nts_transaction_id, issued_at, transmitted_at)
      select 'txi_bench_' || n, ${accountId}, 'test', 'key_bench', 'ref-' || n,
        'iss_bench', 'sup_bench', 'STANDARD',
        case when n % 20 = 0 then 'FAILED' when n % 50 = 1 then 'CANCELED'
          else 'TRANSMITTED' end,
        jsonb_set(jsonb_set(jsonb_set(${JSON.stringify(INVOICE)}::jsonb, '{date}',
          to_jsonb((date '2020-01-01' + n / ${PER_DAY})::text)),
          '{supplied,organizationName}', to_jsonb('거래처 ' || (n % 5000))),
          '{supplied,identificationNumber}', to_jsonb((1000000000 + n % 5000)::text)),
        date '2020-01-01' + n / ${PER_DAY}, date '2020-01-01' + n / ${PER_DAY} + 40,
        n % 97 = 0, (1000000000 + n % 5000)::text, 'TAXABLE', 50000 + n % 1000,
        5000 + (n % 1000) / 10, 55000 + n % 1000 + (n % 1000) / 10, 100,
        case when n % 9 = 0 then 2 end, case when n % 9 = 0 then 'txi_bench_0' end,
        case when n % 9 = 0 then '0000000000000000abcdefgh' end,
        case when n % 20 <> 0 and n % 50 <> 1 then lpad(n::text, 16, '0') || 'abcdefgh' end,
        now(), now()
      from generate_series(0, ${INVOICE_ROWS - 1}) as n`);
    await app.platform.database.db.execute(sql`vacuum analyze tax_invoices`);
  },
  async measure(reader, { app, accountId }) {
    const { db } = app.platform.database;
    // The sequence of the generated row n (the table's sequence started with them).
    const [{ first }] = rowsOf<{ first: number }>(await db.execute(sql`select
      min(sequence)::int as first from tax_invoices where account_id = ${accountId}`)) as
      [{ first: number }];
    const rowOf = () => Math.floor(INVOICE_ROWS * 0.05 + Math.random() * INVOICE_ROWS * 0.9);
    const dayOf = (row: number) => addDays('2020-01-01', Math.floor(row / PER_DAY));
    // A cursor as the list writes it for the account (platform/cursor.ts), at a random row.
    const from = (query: (row: number) => string) => () => {
      const row = rowOf();
      const cursor = app.cursors.encode({ list: 'taxInvoices.browse',
        scope: { accountId, environment: 'test' } }, [first + row]);
      return `/dashboard/tax-invoices?${query(row)}&cursor=${cursor}`;
    };
    // A full page: 50 documents, each linked.
    const full = (body: string) =>
      (body.match(/href="\/dashboard\/tax-invoices\/txi_/g) ?? []).length === 50;
    return {
      table: {
        'page of 50, status TRANSMITTED, from a random cursor': await reader.read(
          from(() => 'status=TRANSMITTED'), full),
        'page of 50, a month\'s write dates, from a random cursor': await reader.read(
          from((row) => `from=${addDays(dayOf(row), -30)}&to=${dayOf(row)}`), full),
        'page of 50, amendments only, from a random cursor': await reader.read(
          from(() => 'amendment=yes'), full),
      },
      notes: [`${INVOICE_ROWS.toLocaleString('en-US')} tax invoices of one account ` +
        `(${PER_DAY} a write date), read by a signed-in viewer; every read a filter and a cursor`],
    };
  },
};

// ---- The monthly books page -----------------------------------------------------------------

const BOOK_ROWS = Number(process.env.BENCH_BOOKS_ROWS ?? 1_000_000);
const BOOK_DAYS = 1_000;
const FIRST_DAY = '2024-01-01';

const books: PageScenario = {
  name: 'dashboard-books: GET /dashboard/books over 1,000,000 entries',
  section: 'results:dashboard-books',
  title: 'Dashboard: the monthly books page (PostgreSQL)',
  p95MsMax: 100,
  seedDescription: `books/${BOOK_ROWS}/${BOOK_DAYS}/${FIRST_DAY}`,
  keep: true,
  async seed({ app, accountId }) {
    const { db } = app.platform.database;
    await db.execute(sql`
      insert into revenue_expense_invoices (account_id, environment, direction, source,
        approval_number, issuance_key, write_date, issue_date, counterpart_number,
        counterpart_name, supply_cost, tax, total_amount, tax_type, amendment_reason,
        original_approval_number, status, late, content_hash, change_sequence, changed_at)
      select ${accountId}, 'test', case when n % 3 = 0 then 'PURCHASE' else 'SALES' end,
        'COLLECTED', lpad(n::text, 24, '0'), null,
        ${FIRST_DAY}::date + (n % ${BOOK_DAYS}), ${FIRST_DAY}::date + (n % ${BOOK_DAYS}) + 1,
        '2208162517', '주식회사 상대방 ' || (n % 1000), 10000 * (1 + n % 5000),
        1000 * (1 + n % 5000), 11000 * (1 + n % 5000), 'TAXABLE', null, null, 'TRANSMITTED',
        false, md5(n::text), n, now()
      from generate_series(1, ${BOOK_ROWS}) as n`);
    await db.execute(sql`insert into revenue_expense_change_counters
      values (${accountId}, 'test', ${BOOK_ROWS})`);
    // Statistics, as autovacuum leaves a table that has settled.
    await db.execute(sql`vacuum analyze revenue_expense_invoices`);
    await db.execute(sql`analyze revenue_expense_month_totals`);
  },
  async measure(reader, { app, accountId }) {
    const { db } = app.platform.database;
    const years = [2024, 2025, 2026];
    const table = {
      'books page of a year (12 months, both directions), years in turn': await reader.read(
        (read) => `/dashboard/books?year=${years[read % years.length]}`),
      'invoices behind one month\'s figure (first page of 100)': await reader.read((read) =>
        `/dashboard/books/entries?month=2025-${String((read % 12) + 1).padStart(2, '0')}` +
        '&direction=SALES'),
    };
    // The query behind the page's figures: the month totals the invoices' triggers keep.
    const plan = rowsOf<Record<string, unknown>>(await db.execute(sql`explain (analyze,
      format json) select * from revenue_expense_month_totals where account_id = ${accountId}
        and environment = 'test' and month >= '2025-01-01' and month < '2026-01-01'
      order by month, direction`));
    const explained = (plan[0]!['QUERY PLAN'] as Array<{ 'Execution Time': number }>)[0]!;
    return {
      table,
      notes: [`${BOOK_ROWS.toLocaleString('en-US')} entries of one account over ${BOOK_DAYS} ` +
        `days from ${FIRST_DAY}, the month totals kept by the insert's trigger, read by a ` +
        'signed-in viewer',
      `The year's figures in the database (EXPLAIN ANALYZE of the month totals): ` +
        `${explained['Execution Time'].toFixed(2)} ms`],
    };
  },
};

export const PAGE_SCENARIOS: readonly PageScenario[] = [home, taxInvoices, books];

// ---- Running them ---------------------------------------------------------------------------

const READS = Number(process.env.BENCH_PAGE_READS ?? 300);
const WARM_UP = 30;
// The kept databases' names: the scenario, then a hash of what the seed writes. A kept database
// is brought up to date by the migrations, as every deployment's is, when the app opens it.
const KEPT_PREFIX = 'etax_bench_dashboard_';

export function keptName(scenario: PageScenario): string {
  const digest = createHash('sha256').update(scenario.seedDescription).digest('hex').slice(0, 12);
  const short = scenario.section.replace('results:dashboard-', '').replace(/-/g, '_');
  return `${KEPT_PREFIX}${short}_${digest}`;
}

async function existingDatabases(adminUrl: string, prefix: string): Promise<string[]> {
  return withClient(adminUrl, async (client) => (await client.query<{ datname: string }>(
    'select datname from pg_database where datname like $1', [`${prefix}%`]))
    .rows.map((row) => row.datname));
}

async function openApp(url: string): Promise<App> {
  const app = await createApp(loadConfig({ DATABASE_URL: url, REDIS_URL: undefined,
    LOG_LEVEL: 'warn', WORKERS_ENABLED: 'false' }));
  await app.server.ready();
  return app;
}

// The scenario's database, seeded: the kept one when it exists; else a new one, seeded, under
// a name of its own while that runs, so an interrupted seed is never mistaken for a finished one.
async function seededDatabase(adminUrl: string, scenario: PageScenario,
  log: (line: string) => void): Promise<{ url: string; seedSeconds: number | null;
    drop(): Promise<void> }> {
  const name = scenario.keep ? keptName(scenario)
    : `${KEPT_PREFIX}scratch_${process.pid}_${Date.now()}`;
  const keepNothing = async () => {
    if (!scenario.keep) {
      await withClient(adminUrl, (client) =>
        client.query(`drop database if exists ${name} with (force)`));
    }
  };
  if (scenario.keep && (await existingDatabases(adminUrl, name)).includes(name)) {
    log(`  reusing the seeded database ${name}`);
    return { url: databaseUrl(adminUrl, name), seedSeconds: null, drop: keepNothing };
  }
  const building = scenario.keep ? `${name}_building` : name;
  await withClient(adminUrl, async (client) => {
    if (scenario.keep) {
      // Older seeds of this scenario (other migrations or seed) and an interrupted one go.
      const prefix = name.slice(0, -12);
      for (const old of await existingDatabases(adminUrl, prefix)) {
        await client.query(`drop database if exists ${old} with (force)`);
      }
    }
    await client.query(`create database ${building}`);
  });
  log(`  seeding ${building} (once per migrations and seed when kept)…`);
  const started = performance.now();
  const app = await openApp(databaseUrl(adminUrl, building));
  try {
    const account = await app.platform.accounts.createAccount({ name: BENCH_ACCOUNT,
      plan: 'STANDARD' });
    await createUsersService({ db: app.platform.database.db, accounts: app.platform.accounts })
      .createUser({ accountId: account.accountId, email: BENCH_EMAIL, role: 'owner',
        password: BENCH_PASSWORD });
    await scenario.seed({ app, accountId: account.accountId });
  } finally {
    await app.close();
  }
  const seedSeconds = (performance.now() - started) / 1_000;
  if (scenario.keep) {
    await withClient(adminUrl, (client) =>
      client.query(`alter database ${building} rename to ${name}`));
  }
  return { url: databaseUrl(adminUrl, name), seedSeconds, drop: keepNothing };
}

function pageTable(table: Record<string, PageFigures>): string[] {
  return ['| scenario | p50 ms | p95 ms | p99 ms | CPU ms per read (app) |',
    '|---|--:|--:|--:|--:|',
    ...Object.entries(table).map(([name, row]) => `| ${name} | ${row.p50.toFixed(1)} | ` +
      `${row.p95.toFixed(1)} | ${row.p99.toFixed(1)} | ${row.cpuMsPerRead.toFixed(2)} |`)];
}

export type PageScenarioResult = { scenario: PageScenario; table: Record<string, PageFigures>;
  met: boolean };

// Runs one page scenario on the PostgreSQL server of adminUrl and writes its section.
export async function runPageScenario(adminUrl: string, scenario: PageScenario,
  resultsFile: string, log: (line: string) => void): Promise<PageScenarioResult> {
  const database = await seededDatabase(adminUrl, scenario, log);
  let app: App | undefined;
  try {
    app = await openApp(database.url);
    const { db } = app.platform.database;
    const [account] = rowsOf<{ id: string }>(await db.execute(sql`select id from accounts
      where name = ${BENCH_ACCOUNT} order by created_at limit 1`));
    const [user] = rowsOf<{ id: string }>(await db.execute(sql`select id from dashboard_users
      where email = ${BENCH_EMAIL}`));
    if (!account || !user) throw new Error(`${scenario.name}: no bench account in its database`);
    // Sessions of earlier runs go; this run signs in afresh.
    await db.execute(sql`delete from dashboard_sessions where user_id = ${user.id}`);
    const sessions = createSessionsService({ db, now: () => new Date() });
    const { token } = await sessions.start({ userId: user.id, address: '127.0.0.1',
      userAgent: undefined });
    const reader = pageReader(app, `etax_session=${token}`, READS, WARM_UP);
    const loadBefore = os.loadavg()[0]!;
    const { table, notes } = await scenario.measure(reader, { app, accountId: account.id });
    const load = os.loadavg().map((value) => value.toFixed(2)).join(', ');
    const met = Object.values(table).every((row) => row.p95 <= scenario.p95MsMax);
    const lines = [`## ${scenario.title}`, '',
      `- Date: ${new Date().toISOString()}; \`npm run bench -- --only ` +
        `${scenario.name.split(':')[0]}\``,
      `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node.js ` +
        `${process.version}`,
      ...notes.map((note) => `- ${note}`),
      `- ${database.seedSeconds === null ? 'The seeded database of an earlier run, reused'
        : `Seeded with generate_series in ${database.seedSeconds.toFixed(1)} s`}; ` +
        `${READS} reads per row after ${WARM_UP} warm-up reads, one at a time, through ` +
        'fastify.inject (session, router checks, the area\'s service and store, the whole page ' +
        'rendered in the layout; no network)',
      `- System load average (1, 5, 15 min) at the end: ${load} (1 min at the start: ` +
        `${loadBefore.toFixed(2)}) on ${os.cpus().length} cores. The machine is shared with ` +
        'other work (builds, tests and benchmarks of other engineers), so the figures are ' +
        'under that load, higher than on an idle machine',
      `- Target: p95 ≤ ${scenario.p95MsMax} ms: ${met ? 'met' : 'NOT met'} in this run`, '',
      ...pageTable(table)];
    const section = marked(scenario.section, lines);
    writeResultsSection(resultsFile, scenario.section, section);
    log(lines.slice(-2 - Object.keys(table).length).join('\n'));
    return { scenario, table, met };
  } finally {
    await app?.close();
    await database.drop();
  }
}
