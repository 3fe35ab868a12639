// Bank transactions on PostgreSQL (docs/bank-transactions.md § Performance):
//   - the listing over 1,000,000 stored transactions of one bank account: pages of 100 read
//     through the whole HTTP stack (authentication, plan check, validation, rate limiter, route,
//     store, matching hints) with fastify.inject, from random cursors, unfiltered and with a
//     month's from/to; the rows are generated in the database with generate_series;
//   - one sync of a busy sandbox account (about 10,000 new lines in its first 90 days) through
//     the API and the sync job, timed from the request to SUCCEEDED and by the job's own start
//     and end.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench:bank-transactions
//   BENCH_BANK_ROWS=200000 BENCH_BANK_READS=500 …   (smaller runs)
//
// Appends its section to bench/RESULTS.md (between its markers, replaced on every run).
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { createApp } from '../src/app.ts';
import { bankAccountIdOf } from '../src/areas/bank-transactions/index.ts';
import { loadConfig } from '../src/config.ts';
import { latencyTable, measurePageReads, WARM_UP_READS } from './page-reads.ts';
import { createScratchDatabase } from './postgres.ts';
import { marked, writeResultsSection } from './results-file.ts';

const ROWS = Number(process.env.BENCH_BANK_ROWS ?? 1_000_000);
const READS = Number(process.env.BENCH_BANK_READS ?? 2_000);
const PAGE = 100;
// Lines per booking day of the generated account.
const PER_DAY = 400;
const RESULTS = path.resolve(import.meta.dirname, 'RESULTS.md');
const SECTION = 'results:bank-transactions';

const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('DATABASE_URL must name a PostgreSQL server');
const scratch = await createScratchDatabase(serverUrl, 'etax_bench_bank');
const url = scratch.url;

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

let app: Awaited<ReturnType<typeof createApp>> | undefined;
try {
  app = await createApp(loadConfig({ DATABASE_URL: url, REDIS_URL: undefined,
    LOG_LEVEL: 'warn', RATE_LIMIT_OVERRIDES: JSON.stringify({
      'bankAccounts.transactions.list': { limit: 1_000_000, windowSeconds: 60 } }) }));
  await app.start();
  await app.server.ready();
  const server = app.server;
  const account = await app.platform.accounts.createAccount({ name: 'Bench', plan: 'STANDARD' });
  const scope = { accountId: account.accountId, environment: 'test' as const };
  const { db } = app.platform.database;
  const authorization = `Basic ${Buffer.from(`${account.keys.test}:`).toString('base64')}`;

  // The listing: a stored account of ROWS lines, PER_DAY a day from 2020-01-01.
  const stored = bankAccountIdOf(scope, '004', '110000000001');
  const started = performance.now();
  await db.execute(sql`insert into bank_accounts (id, account_id, environment, bank_code,
    masked_account_number, holder_name, balance, last_synced_at, last_synced_through)
    values (${stored}, ${scope.accountId}, 'test', '004', '********0001', '벤치 예금주', 0,
      now(), current_date)`);
  await db.execute(sql`
    insert into bank_transactions (id, bank_account_id, account_id, environment, booked_date,
      sequence, booked_time, direction, amount, balance_after, counterparty_name, memo, branch,
      content_hash, changed_at)
    select 'btx_bench_' || n, ${stored}, ${scope.accountId}, 'test',
      date '2020-01-01' + (n / ${PER_DAY}), (n % ${PER_DAY}) + 1,
      to_char(time '00:00' + ((n % ${PER_DAY}) * interval '3 minutes'), 'HH24:MI:SS'),
      case when n % 3 = 0 then 'WITHDRAWAL' else 'DEPOSIT' end, 1100 * (1 + n % 5000),
      100000000 + n, '주식회사 거래처 ' || (n % 1000), '인터넷입금', '본점영업부', md5(n::text),
      now()
    from generate_series(0, ${ROWS - 1}) as n`);
  await db.execute(sql`analyze bank_transactions`);
  const loadSeconds = (performance.now() - started) / 1000;

  const measure = (query: (line: number) => string) => measurePageReads({ server,
    authorization, rows: ROWS, page: PAGE, reads: READS,
    url: (line) => `/v1/bankAccounts/${stored}/transactions?${query(line)}` });
  // A cursor as the server writes it for this bank account's list (platform/cursor.ts).
  const list = { list: `bankAccounts.transactions.list ${stored}`, scope };
  const position = (line: number) => app!.cursors.encode(list, [addDays('2020-01-01',
    Math.floor(line / PER_DAY)), (line % PER_DAY) + 1]);
  const monthOf = (line: number) => {
    const day = addDays('2020-01-01', Math.floor(line / PER_DAY));
    return `from=${day}&to=${addDays(day, 30)}`;
  };
  const scenarios = {
    'page of 100 from a random cursor': await measure((line) =>
      `limit=${PAGE}&cursor=${position(line)}`),
    'page of 100 from a random cursor, a month\'s from/to': await measure((line) =>
      `limit=${PAGE}&${monthOf(line)}&cursor=${position(line)}`),
  };

  // One sync of a busy sandbox account, through the API and the job.
  const connected = await app.connections.service.connect(scope, { kind: 'BANK_ACCOUNT',
    bankCode: '004', accountNumber: '7771234567890', userId: 'bench', password: 'bench' });
  if (connected.kind !== 'connected') throw new Error(connected.message);
  const busy = bankAccountIdOf(scope, '004', '7771234567890');
  const requested = performance.now();
  const accepted = await server.inject({ method: 'POST',
    url: `/v1/bankAccounts/${busy}:sync`, headers: { authorization } });
  if (accepted.statusCode !== 202) throw new Error(accepted.body);
  const { syncId } = accepted.json() as { syncId: string };
  type SyncView = { state: string; counts: { listed: number; created: number };
    startedAt: string | null; finishedAt: string | null };
  let sync: SyncView;
  for (;;) {
    const response = await server.inject({ method: 'GET',
      url: `/v1/bankAccounts/${busy}/syncs/${syncId}`, headers: { authorization } });
    sync = response.json() as SyncView;
    if (sync.state === 'SUCCEEDED' || sync.state === 'FAILED') break;
    await sleep(20);
  }
  const endToEnd = (performance.now() - requested) / 1000;
  if (sync.state !== 'SUCCEEDED') throw new Error(JSON.stringify(sync));
  const jobSeconds = (Date.parse(sync.finishedAt!) - Date.parse(sync.startedAt!)) / 1000;

  const load = os.loadavg()[0]!.toFixed(2);
  const lines = ['## Bank transactions (PostgreSQL)', '',
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node.js ${process.version}`,
    `- Listing: ${ROWS.toLocaleString('en-US')} transactions of one bank account ` +
      `(${PER_DAY} a day), generated with generate_series in ${loadSeconds.toFixed(1)} s; ` +
      `${READS} reads per scenario after ${WARM_UP_READS} warm-up reads, one at a time, ` +
      'through fastify.inject (authentication, plan check, validation, rate limiter, route, ' +
      'store, matching hints; no network). Target: p95 ≤ 50 ms per page of 100', '',
    ...latencyTable(scenarios),
    '',
    `- Sync: the first sync of a busy sandbox account, ${sync.counts.created.toLocaleString(
      'en-US')} new transactions of ${sync.counts.listed.toLocaleString('en-US')} listed: ` +
      `${jobSeconds.toFixed(2)} s in the job (login, statement, upserts, events, in one ` +
      `transaction), ${endToEnd.toFixed(2)} s from the request to SUCCEEDED (with the job ` +
      'queue\'s pick-up). Target: ≤ 10 s',
    `- System load average (1 min) at the end: ${load} on ${os.cpus().length} cores`];
  const section = marked(SECTION, lines);
  writeResultsSection(RESULTS, SECTION, section);
  process.stdout.write(`${section}\n`);
} finally {
  await app?.close();
  await scratch.drop();
}
