// The dashboard's tax-invoice list on PostgreSQL (docs/dashboard.md § Tax invoices): the whole
// page (session, the area's service, the store's query, Preact rendering in the layout) over an
// account with 1,000,000 tax invoices, read through fastify.inject one at a time from random
// cursors, with a filter. The documents are generated in the database with generate_series.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:dashboard-tax-invoices
//   BENCH_TAX_INVOICE_ROWS=200000 BENCH_TAX_INVOICE_READS=200 …   (smaller runs)
//
// Appends its section to bench/RESULTS.md (between its markers, replaced on every run).
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createSessionsService } from '../src/dashboard/sessions/service.ts';
import { createUsersService } from '../src/dashboard/users/service.ts';
import { latencyTable, WARM_UP_READS, type Latency } from './page-reads.ts';
import { percentile } from './percentile.ts';
import { createScratchDatabase } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

const ROWS = Number(process.env.BENCH_TAX_INVOICE_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_TAX_INVOICE_READS ?? 500);
// Documents per write date of the generated account (about four years of them).
const PER_DAY = 700;
const RESULTS = path.resolve(import.meta.dirname, 'RESULTS.md');
const SECTION = 'results:dashboard-tax-invoices';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server');
const scratch = await createScratchDatabase(serverUrl, 'etax_bench_dti');

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

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

let app: Awaited<ReturnType<typeof createApp>> | undefined;
try {
  app = await createApp(loadConfig({ DATABASE_URL: scratch.url, REDIS_URL: undefined,
    LOG_LEVEL: 'warn' }));
  await app.server.ready();
  const server = app.server;
  const { db } = app.platform.database;
  const account = await app.platform.accounts.createAccount({ name: 'Bench', plan: 'STANDARD' });
  const user = await createUsersService({ db, accounts: app.platform.accounts }).createUser({
    accountId: account.accountId, email: 'bench@example.com', role: 'viewer',
    password: 'bench-password-0' });
  const { token } = await createSessionsService({ db }).start({ userId: user.user.userId,
    address: '127.0.0.1', userAgent: undefined });

  const started = performance.now();
  // Mostly transmitted, every 20th failed, every 50th canceled; every 97th late; every 9th an
  // amendment; recipients among 5,000 names and numbers.
  await db.execute(sql`
    insert into tax_invoices (issuance_key, account_id, environment, api_key_id,
      client_reference_id, issuer_id, supplier_key, issuance_type, status, invoice, write_date,
      issue_deadline, late_issuance, counterpart_number, tax_type, supply_cost_total, tax_total,
      total_amount, charged_points, amendment_reason, original_issuance_key,
      original_nts_transaction_id, nts_transaction_id, issued_at, transmitted_at)
    select 'txi_bench_' || n, ${account.accountId}, 'test', 'key_bench', 'ref-' || n,
      'iss_bench', 'sup_bench', 'STANDARD',
      case when n % 20 = 0 then 'FAILED' when n % 50 = 1 then 'CANCELED' else 'TRANSMITTED' end,
      jsonb_set(jsonb_set(jsonb_set(${JSON.stringify(INVOICE)}::jsonb, '{date}',
        to_jsonb((date '2020-01-01' + n / ${PER_DAY})::text)),
        '{supplied,organizationName}', to_jsonb('거래처 ' || (n % 5000))),
        '{supplied,identificationNumber}', to_jsonb((1000000000 + n % 5000)::text)),
      date '2020-01-01' + n / ${PER_DAY}, date '2020-01-01' + n / ${PER_DAY} + 40, n % 97 = 0,
      (1000000000 + n % 5000)::text, 'TAXABLE', 50000 + n % 1000, 5000 + (n % 1000) / 10,
      55000 + n % 1000 + (n % 1000) / 10, 100,
      case when n % 9 = 0 then 2 end, case when n % 9 = 0 then 'txi_bench_0' end,
      case when n % 9 = 0 then '0000000000000000abcdefgh' end,
      case when n % 20 <> 0 and n % 50 <> 1 then lpad(n::text, 16, '0') || 'abcdefgh' end,
      now(), now()
    from generate_series(0, ${ROWS - 1}) as n`);
  await db.execute(sql`analyze tax_invoices`);
  const loadSeconds = (performance.now() - started) / 1000;

  // The sequence of the generated row n (the table's sequence started with them).
  const [{ first }] = (await db.execute<{ first: number }>(sql`select min(sequence)::int as first
    from tax_invoices where account_id = ${account.accountId}`)).rows as [{ first: number }];
  const cookie = `etax_session=${token}`;
  async function measure(query: (row: number) => string): Promise<Latency> {
    const timings: number[] = [];
    for (let read = 0; read < READS + WARM_UP_READS; read += 1) {
      const row = Math.floor(ROWS * 0.05 + Math.random() * ROWS * 0.9);
      // A cursor as the list writes it for the account (platform/cursor.ts).
      const cursor = app!.cursors.encode({ list: 'taxInvoices.browse',
        scope: { accountId: account.accountId, environment: 'test' } }, [first + row]);
      const url = `/dashboard/tax-invoices?${query(row)}&cursor=${cursor}`;
      const begin = performance.now();
      const response = await server.inject({ method: 'GET', url,
        headers: { cookie, host: 'localhost' } });
      const elapsed = performance.now() - begin;
      if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${url}`);
      // A full page: 50 documents, each linked.
      if ((response.body.match(/href="\/dashboard\/tax-invoices\/txi_/g) ?? []).length !== 50) {
        throw new Error(`short page: ${url}`);
      }
      if (read >= WARM_UP_READS) timings.push(elapsed);
    }
    timings.sort((a, b) => a - b);
    return { p50: percentile(timings, 0.5), p95: percentile(timings, 0.95),
      p99: percentile(timings, 0.99) };
  }
  const dayOf = (row: number) => addDays('2020-01-01', Math.floor(row / PER_DAY));
  const scenarios = {
    'page of 50, status TRANSMITTED, from a random cursor': await measure(() =>
      'status=TRANSMITTED'),
    'page of 50, a month\'s write dates, from a random cursor': await measure((row) =>
      `from=${addDays(dayOf(row), -30)}&to=${dayOf(row)}`),
    'page of 50, amendments only, from a random cursor': await measure(() => 'amendment=yes'),
  };

  const load = os.loadavg()[0]!.toFixed(2);
  const lines = ['## Dashboard: the tax-invoice list (PostgreSQL)', '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node.js ${process.version}`,
    `- ${ROWS.toLocaleString('en-US')} tax invoices of one account (${PER_DAY} a write date), ` +
      `generated with generate_series in ${loadSeconds.toFixed(1)} s; ${READS} reads per ` +
      `scenario after ${WARM_UP_READS} warm-up reads, one at a time, through fastify.inject ` +
      '(session, the area\'s service and store, the page rendered in the layout; no network). ' +
      'Target: p95 ≤ 50 ms with a filter and a cursor', '',
    ...latencyTable(scenarios),
    '',
    `- System load average (1 min) at the end: ${load} on ${os.cpus().length} cores; the ` +
      'machine was shared with other work while this ran'];
  const section = marked(SECTION, lines);
  writeResultsSection(RESULTS, SECTION, section);
  process.stdout.write(`${section}\n`);
} finally {
  await app?.close();
  await scratch.drop();
}
