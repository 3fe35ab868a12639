// The growth point of docs/operations.md § Growth past one PostgreSQL: list and feed latency
// with 10,000,000 tax invoices and 10,000,000 collected invoices in one PostgreSQL database.
//
// One account (the measured one) owns a tenth of each table and 999 others the rest, their rows
// interleaved in insertion order, as a shared database fills. Every tax invoice is a copy of one
// issued through the API (its document, signature and status varied by position), so pages
// serialize as real ones do. Rows are made by the database itself (generate_series, in batches
// of BENCH_GROWTH_BATCH), with the secondary indexes dropped during the load and built once
// afterwards. The seeded database, etax_bench_growth, is kept for the next run, which measures
// at once, or goes on seeding where a stopped run left off; drop it with BENCH_GROWTH_DROP=1.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:growth
//   BENCH_GROWTH_ROWS=2000000 …   (a smaller point)
//
// Replaces its section of bench/RESULTS.md.
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import {
  corporateSubject, createTestCa, issueCertificate, signPriKey,
} from '../test/areas/issuers/certificate-fixtures.ts';
import { latencyTable, measurePageReads, WARM_UP_READS, type Latency } from './page-reads.ts';
import { databaseUrl, withClient } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

const ROWS = Number(process.env.BENCH_GROWTH_ROWS ?? 10_000_000);
const BATCH = Number(process.env.BENCH_GROWTH_BATCH ?? 500_000);
const READS = Number(process.env.BENCH_GROWTH_READS ?? 1_000);
// Of every ten rows, one is the measured account's.
const SHARE = 10;
const OTHER_ACCOUNTS = 999;
const PAGE = 100;
// Written into the seeding statements, which take no parameters for them.
const share = sql.raw(String(SHARE));
const others = sql.raw(String(OTHER_ACCOUNTS));
const DATABASE = process.env.BENCH_GROWTH_DATABASE ?? 'etax_bench_growth';
const RESULTS = path.resolve(import.meta.dirname, 'RESULTS.md');
const SECTION = 'results:growth';
const SUPPLIER = '1234567891';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server');
await withClient(serverUrl, async (client) => {
  const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
  if (found.rowCount === 0) await client.query(`create database ${DATABASE}`);
});
const url = databaseUrl(serverUrl, DATABASE);
const loadAverages = [os.loadavg()[0]!];

const app = await createApp(loadConfig({ DATABASE_URL: url, REDIS_URL: undefined,
  LOG_LEVEL: 'warn', WORKERS_ENABLED: 'false',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    'taxInvoices.list': { limit: 1_000_000, windowSeconds: 60 },
    'revenueExpenses.taxInvoices.list': { limit: 1_000_000, windowSeconds: 60 } }) }));
const { db } = app.platform.database;
const rows = async <T>(query: ReturnType<typeof sql>) => {
  const result = await db.execute(query);
  return ('rows' in result ? result.rows : result) as T[];
};

type Meta = { account_id: string; tax_invoices: number; feed: number };

async function inject(key: string, method: 'GET' | 'POST', url: string, body?: unknown,
  headers: Record<string, string> = {}) {
  const response = await app.server.inject({ method, url, headers: {
    authorization: `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
  ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  if (response.statusCode >= 300) throw new Error(`${method} ${url}: ${response.body}`);
  return response.json() as Record<string, unknown>;
}

// The measured account, with one tax invoice issued through the API as the template of all.
async function prepare(): Promise<Meta> {
  await db.execute(sql`create table if not exists bench_growth (account_id text not null,
    tax_invoices bigint not null, feed bigint not null)`);
  const [existing] = await rows<Meta>(sql`select account_id, tax_invoices::int,
    feed::int from bench_growth`);
  if (existing) return existing;
  const account = await app.platform.accounts.createAccount({ name: 'Growth', plan: 'STANDARD' });
  const key = account.keys.test;
  const issuer = await inject(key, 'POST', '/v1/issuers', { identificationNumber: SUPPLIER,
    organizationName: '주식회사 이택스', representativeName: '홍길동' });
  const certificate = await issueCertificate(await createTestCa(),
    { subject: corporateSubject('주식회사 이택스', SUPPLIER) });
  const upload = await inject(key, 'POST', `/v1/issuers/${String(issuer.issuerId)}/certificates`,
    { signCert: certificate.certificateDer.toString('base64'),
      signPri: signPriKey(certificate.pkcs8, 'pass1234!', 'pbes2').toString('base64'),
      password: 'pass1234!' });
  await app.issuers.processUpload(String(upload.identifier));
  const date = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
  await inject(key, 'POST', '/v1/taxInvoices/issue', {
    date, purpose: 'CLAIM',
    supplier: { identificationNumber: SUPPLIER, organizationName: '주식회사 이택스',
      representativeName: '홍길동', address: '서울특별시 중구 세종대로 110',
      manager: { email: 'tax@example.co.kr', name: '김담당' } },
    supplied: { identificationNumber: '2208162517', organizationName: '주식회사 받는곳',
      representativeName: '이영희', managers: [{ email: 'account@example.com' }] },
    items: [{ date, name: '클라우드 사용료', quantity: 10, unitPrice: 5_000, supplyCost: 50_000,
      tax: 5_000 }],
  }, { 'supplier-key': String(issuer.supplierKey) });
  await db.execute(sql`insert into bench_growth values (${account.accountId}, 0, 0)`);
  return { account_id: account.accountId, tax_invoices: 0, feed: 0 };
}

// The secondary indexes of a table, dropped for the load and made again after it.
async function withoutIndexes(table: string, load: () => Promise<void>) {
  const indexes = await rows<{ name: string; definition: string }>(sql`
    select i.indexname as name, i.indexdef as definition from pg_indexes i
    where i.tablename = ${table} and i.schemaname = 'public' and not exists (
      select 1 from pg_constraint c where c.conname = i.indexname)`);
  await db.execute(sql`create table if not exists bench_growth_indexes (name text primary key,
    definition text not null)`);
  for (const index of indexes) {
    await db.execute(sql`insert into bench_growth_indexes values (${index.name},
      ${index.definition}) on conflict do nothing`);
    await db.execute(sql.raw(`drop index ${index.name}`));
  }
  await load();
  const dropped = await rows<{ name: string; definition: string }>(sql`
    select name, definition from bench_growth_indexes
    where definition like ${`% ON public.${table} %`}`);
  for (const index of dropped) {
    const started = performance.now();
    await db.execute(sql.raw(index.definition.replace(/^CREATE (UNIQUE )?INDEX /,
      'CREATE $1INDEX IF NOT EXISTS ')));
    await db.execute(sql`delete from bench_growth_indexes where name = ${index.name}`);
    log(`index ${index.name} in ${seconds(started)} s`);
  }
  await db.execute(sql.raw(`analyze ${table}`));
}

const seconds = (started: number) => ((performance.now() - started) / 1000).toFixed(1);
function log(line: string) {
  const load = os.loadavg()[0]!.toFixed(1);
  process.stderr.write(`${new Date().toISOString()} ${line} (load ${load})\n`);
}

async function seedTaxInvoices(meta: Meta) {
  if (meta.tax_invoices >= ROWS) return;
  await withoutIndexes('tax_invoices', async () => {
    for (let from = meta.tax_invoices + 1; from <= ROWS; from += BATCH) {
      const to = Math.min(ROWS, from + BATCH - 1);
      const started = performance.now();
      await db.transaction(async (tx) => {
        await tx.execute(sql`
          insert into tax_invoices (issuance_key, account_id, environment, api_key_id,
            client_reference_id, issuer_id, supplier_key, issuance_type, status, invoice,
            write_date, issue_deadline, late_issuance, counterpart_number, tax_type,
            supply_cost_total, tax_total, total_amount, charged_points, reservation_id,
            signed_digest, signature, signing_certificate, nts_transaction_id, issued_at,
            transmitted_at, created_at, updated_at)
          select 'g' || lpad(n::text, 12, '0'),
            case when n % ${share} = 0 then t.account_id
              else 'acc_growth_' || (n % ${others}) end,
            'test', t.api_key_id, 'growth-' || n, t.issuer_id, t.supplier_key, 'STANDARD',
            case when (n / 10) % 20 = 7 then 'FAILED' else 'TRANSMITTED' end,
            jsonb_set(t.invoice, '{description}', to_jsonb('거래 ' || n)),
            date '2023-01-01' + (n % 1000)::int, date '2023-02-10' + (n % 1000)::int, false,
            t.counterpart_number, t.tax_type, t.supply_cost_total + n % 1000,
            t.tax_total, t.total_amount + n % 1000, t.charged_points, null,
            t.signed_digest, t.signature, t.signing_certificate,
            case when (n / 10) % 20 = 7 then null else lpad(n::text, 16, '0') || 'growthzz' end,
            now(), now(), now(), now()
          from (select * from tax_invoices where account_id = ${meta.account_id}
            and client_reference_id is null limit 1) t,
            generate_series(${from}::bigint, ${to}::bigint) n`);
        await tx.execute(sql`update bench_growth set tax_invoices = ${to}`);
      });
      meta.tax_invoices = to;
      log(`tax_invoices ${to.toLocaleString('en-US')} (batch in ${seconds(started)} s)`);
    }
  });
}

async function seedFeed(meta: Meta) {
  if (meta.feed >= ROWS) return;
  await withoutIndexes('revenue_expense_invoices', async () => {
    for (let from = meta.feed + 1; from <= ROWS; from += BATCH) {
      const to = Math.min(ROWS, from + BATCH - 1);
      const started = performance.now();
      await db.transaction(async (tx) => {
        await tx.execute(sql`
          insert into revenue_expense_invoices (account_id, environment, direction, source,
            approval_number, issuance_key, write_date, issue_date, counterpart_number,
            counterpart_name, supply_cost, tax, total_amount, tax_type, amendment_reason,
            original_approval_number, status, late, content_hash, change_sequence, changed_at)
          select case when n % ${share} = 0 then ${meta.account_id}
              else 'acc_growth_' || (n % ${others}) end,
            'test', case when n % 2 = 0 then 'SALES' else 'PURCHASE' end,
            'COLLECTED', lpad(n::text, 24, '0'), null,
            date '2023-01-01' + (n % 1000)::int, date '2023-01-01' + (n % 1000)::int + 1,
            '2208162517',
            '주식회사 상대방 ' || (n % 1000), 10000 * (1 + n % 5000), 1000 * (1 + n % 5000),
            11000 * (1 + n % 5000), 'TAXABLE', null, null, 'TRANSMITTED', false, md5(n::text),
            case when n % ${share} = 0 then n / ${share} else n end, now()
          from generate_series(${from}::bigint, ${to}::bigint) n`);
        await tx.execute(sql`update bench_growth set feed = ${to}`);
      });
      meta.feed = to;
      log(`revenue_expense_invoices ${to.toLocaleString('en-US')} ` +
        `(batch in ${seconds(started)} s)`);
    }
  });
  await db.execute(sql`insert into revenue_expense_change_counters
    values (${meta.account_id}, 'test', ${Math.floor(ROWS / SHARE)})
    on conflict (account_id, environment) do update set last_sequence = excluded.last_sequence`);
}

async function explainMs(query: ReturnType<typeof sql>): Promise<string> {
  type PlanNode = { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] };
  const [plan] = await rows<{ 'QUERY PLAN': Array<{ 'Execution Time': number;
    Plan: PlanNode }> }>(sql`explain (analyze, format json) ${query}`);
  const explained = plan!['QUERY PLAN'][0]!;
  const node = explained.Plan.Plans?.[0] ?? explained.Plan;
  return `${explained['Execution Time'].toFixed(2)} ms, ${node['Node Type']}` +
    ('Index Name' in node ? ` on ${String(node['Index Name'])}` : '');
}

try {
  await app.start();
  await app.server.ready();
  const meta = await prepare();
  const seedStarted = performance.now();
  const seededBefore = { taxInvoices: meta.tax_invoices, feed: meta.feed };
  await seedTaxInvoices(meta);
  await seedFeed(meta);
  const seedSeconds = seconds(seedStarted);
  loadAverages.push(os.loadavg()[0]!);
  const { key } = await app.platform.accounts.createKey({ accountId: meta.account_id,
    environment: 'test' });
  const authorization = `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
  const own = Math.floor(ROWS / SHARE);
  // The measured account's tax invoices hold sequences from 1 to about ROWS; a random cursor
  // in that range starts a full page.
  const [{ sequence_max: sequenceMax }] = await rows<{ sequence_max: number }>(sql`
    select max(sequence)::bigint as sequence_max from tax_invoices
    where account_id = ${meta.account_id}`) as [{ sequence_max: number }];
  // `share` of the account's rows match the query: a random start leaves a full page after it.
  const listPage = (query: (position: number) => string, share = 1) => measurePageReads({
    server: app.server, authorization, rows: Math.floor(own * share), page: PAGE, reads: READS,
    items: (body) => body.taxInvoices!,
    url: (position) => `/v1/taxInvoices?limit=${PAGE}&${query(position)}` });
  const feedPage = (query: (position: number) => string) => measurePageReads({
    server: app.server, authorization, rows: own, page: PAGE, reads: READS,
    url: (position) => `/v1/revenueExpenses/taxInvoices?limit=${PAGE}&${query(position)}` });
  const scaled = (position: number) => Math.floor(position * (Number(sequenceMax) / own));
  // Cursors as the server writes them for the account's lists (platform/cursor.ts).
  const scope = { accountId: meta.account_id, environment: 'test' as const };
  const listCursor = (sequence: number) =>
    app.cursors.encode({ list: 'taxInvoices.list', scope }, [sequence]);
  const feedCursor = (position: number) =>
    app.cursors.encode({ list: 'revenueExpenses.taxInvoices.list', scope }, [position]);
  const scenarios: Record<string, Latency> = {
    'tax invoices: page of 100 from a random cursor': await listPage((position) =>
      `cursor=${listCursor(scaled(position))}`),
    'tax invoices: page of 100, status=FAILED (1 in 20), random cursor': await listPage(
      (position) => `status=FAILED&cursor=${listCursor(scaled(position * 20))}`, 1 / 20),
    'tax invoices: page of 100, one month of write dates': await listPage((position) => {
      const month = new Date(Date.UTC(2023, position % 30, 1)).toISOString().slice(0, 7);
      return `writeDateFrom=${month}-01&writeDateTo=${month}-28`;
    }),
    'revenue/expense feed: page of 100 from a random cursor': await feedPage((position) =>
      `cursor=${feedCursor(position)}`),
    'revenue/expense feed: page of 100, direction=SALES': await feedPage((position) =>
      `direction=SALES&cursor=${feedCursor(position)}`),
  };
  loadAverages.push(os.loadavg()[0]!);
  const listPlan = await explainMs(sql`select * from tax_invoices
    where account_id = ${meta.account_id} and environment = 'test'
      and sequence > ${Math.floor(Number(sequenceMax) / 2)} order by sequence limit ${PAGE + 1}`);
  const feedPlan = await explainMs(sql`select * from revenue_expense_invoices
    where account_id = ${meta.account_id} and environment = 'test'
      and change_sequence > ${Math.floor(own / 2)} order by change_sequence limit ${PAGE + 1}`);
  const [sizes] = await rows<{ tax_invoices: string; feed: string }>(sql`select
    pg_size_pretty(pg_total_relation_size('tax_invoices')) as tax_invoices,
    pg_size_pretty(pg_total_relation_size('revenue_expense_invoices')) as feed`);
  const seeded = seededBefore.taxInvoices >= ROWS && seededBefore.feed >= ROWS
    ? 'seeded by an earlier run'
    : `seeded in ${seedSeconds} s (from ${seededBefore.taxInvoices.toLocaleString('en-US')} ` +
      `tax invoices and ${seededBefore.feed.toLocaleString('en-US')} collected invoices)`;
  const lines = ['## Growth: lists over 10,000,000 invoices (PostgreSQL)', '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ` +
      `Node.js ${process.version}, ` +
      'PostgreSQL on the same machine, shared with other work',
    `- ${ROWS.toLocaleString('en-US')} tax invoices (${sizes!.tax_invoices} with indexes) and ` +
      `${ROWS.toLocaleString('en-US')} collected invoices of the feed (${sizes!.feed}), ` +
      `${OTHER_ACCOUNTS + 1} accounts; the measured one owns ${own.toLocaleString('en-US')} ` +
      `of each, interleaved with the others'; ${seeded}`,
    `- ${READS} reads per scenario after ${WARM_UP_READS} warm-up reads, one at a time, ` +
      'through fastify.inject (authentication, plan check, validation, rate limiter, route, ' +
      'store, serialization; no network)',
    `- System load average (1 min) at the start, after seeding and at the end: ` +
      `${loadAverages.map((load) => load.toFixed(2)).join(', ')} on ${os.cpus().length} cores`,
    `- One page in the database (EXPLAIN ANALYZE): tax invoices ${listPlan}; feed ${feedPlan}`,
    '',
    ...latencyTable(scenarios)];
  const section = marked(SECTION, lines);
  writeResultsSection(RESULTS, SECTION, section);
  process.stdout.write(`${section}\n`);
} finally {
  await app.close();
  if (process.env.BENCH_GROWTH_DROP === '1') {
    await withClient(serverUrl, (client) =>
      client.query(`drop database if exists ${DATABASE} with (force)`));
  }
}
