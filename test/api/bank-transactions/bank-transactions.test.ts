// Bank accounts and transactions end to end (docs/bank-transactions.md): plans gate every
// operation; accounts connected on the hosted page are listed; a sync through the sandbox bank
// records the account's history, a second sync changes nothing, a sync a week later adds the new
// lines and updates the corrected one in place; twins stay two transactions; concurrent
// requests share one sync; credentials never leave; nothing crosses accounts or environments;
// deposits hint at the issued invoices they may pay; every bad input is refused.
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, isBusinessDay, seoulDate } from '../../../src/domain/business-days.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import {
  invoiceBody,
  issueTransmitted,
  registerSupplier,
  request,
} from '../tax-invoices/helpers.ts';
import {
  BANK_PASSWORD,
  BANK_USER_ID,
  connectBankAccount,
  getSync,
  listBankAccounts,
  readAllTransactions,
  readTransactions,
  requestSync,
  syncAndWait,
  waitForSync,
  type TransactionView,
} from './helpers.ts';

const DAY_MS = 86_400_000;

// 18:30 in Korea on the first business day after tomorrow: that day's lines are all booked, and
// none of them is corrected yet (the sandbox corrects a day's first line 24 hours after it).
function eveningOfNextBusinessDay(): { day: string; at: Date } {
  let day = addDays(seoulDate(new Date()), 2);
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return { day, at: new Date(`${day}T09:30:00Z`) };
}

const START = eveningOfNextBusinessDay();
let now = START.at;
const clock = () => now;

const logLines: string[] = [];
const bodies: string[] = [];
let app: TestApp;
// Queues exist but nothing works them: syncs stay QUEUED.
let idle: TestApp;

beforeAll(async () => {
  const logDestination = new Writable({ write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  } });
  app = await createTestApp({ jobs: true, now: clock, logDestination, env: {
    LOG_LEVEL: 'trace', TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0', AUTH_CACHE_TTL_MS: '0',
    CONNECTION_GATEWAY_TIMEOUT_MS: '500' } });
  // Every response body the tests receive, to look for credentials in.
  const inject = app.server.inject.bind(app.server);
  app.server.inject = (async (options: string) => {
    const response = await inject(options);
    bodies.push(response.body);
    return response;
  }) as unknown as typeof app.server.inject;
  idle = await createTestApp({ jobs: true, now: clock, env: { WORKERS_ENABLED: 'false',
    AUTH_CACHE_TTL_MS: '0' } });
});

afterAll(async () => {
  await app?.close();
  await idle?.close();
});

const lineKey = (item: TransactionView) => `${item.bookedAt}|${item.amount}|${item.direction}`;

describe('plans', () => {
  const gated = [
    { method: 'GET' as const, url: '/v1/bankAccounts' },
    { method: 'GET' as const, url: '/v1/bankAccounts/bac_none/transactions' },
    { method: 'POST' as const, url: '/v1/bankAccounts/bac_none:sync' },
    { method: 'GET' as const, url: '/v1/bankAccounts/bac_none/syncs/bsy_none' },
  ];

  it('refuses every operation below Standard with 403 PLAN_UPGRADE_REQUIRED', async () => {
    const { keys } = await app.createAccount({ plan: 'FREE' });
    for (const operation of gated) {
      const response = await app.server.inject(request(keys.test, operation.method,
        operation.url));
      expect(response.statusCode, operation.url).toBe(403);
      expect(response.json()).toMatchObject({ code: 'PLAN_UPGRADE_REQUIRED' });
      expect(response.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('lets Standard and Premium accounts through, and charges nothing', async () => {
    for (const plan of ['STANDARD', 'PREMIUM'] as const) {
      const { keys } = await app.createAccount({ plan });
      const before = (await app.server.inject(request(keys.test, 'GET', '/v1/points'))).json();
      expect(await listBankAccounts(app, keys.test), plan).toEqual([]);
      for (const operation of gated.slice(1)) {
        const response = await app.server.inject(request(keys.test, operation.method,
          operation.url));
        expect(response.statusCode, `${plan} ${operation.url}`).toBe(404);
      }
      const after = (await app.server.inject(request(keys.test, 'GET', '/v1/points'))).json();
      expect(after).toEqual(before);
    }
  });
});

describe('accounts and syncs', () => {
  let key: string;
  let liveKey: string;
  let bankAccountId: string;
  let first: TransactionView[];

  beforeAll(async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    key = keys.test;
    liveKey = keys.live;
  });

  it('lists a connected account with its bank, masked number and no balance yet', async () => {
    const account = await connectBankAccount(app, key, '004', '110-123-456789');
    bankAccountId = account.bankAccountId;
    expect(account).toMatchObject({ bankCode: '004', bankName: 'KB국민은행',
      accountNumber: '********6789', holderName: '샌드박스 예금주', currency: 'KRW',
      state: 'CONNECTED', lastSyncedAt: null, balance: null });
    expect(bankAccountId).toMatch(/^bac_[A-Za-z0-9_-]+$/);
    expect((await readTransactions(app, key, bankAccountId)).items).toEqual([]);
  });

  it('records the last 90 days on the first sync, with the balance', async () => {
    const sync = await syncAndWait(app, key, bankAccountId);
    expect(sync).toMatchObject({ bankAccountId, trigger: 'REQUEST', from: addDays(START.day, -90),
      to: START.day, failure: null });
    expect(sync.counts.created).toBe(sync.counts.listed);
    expect(sync.counts.listed).toBeGreaterThan(100);
    expect(sync.counts).toMatchObject({ updated: 0, unchanged: 0 });
    const { items } = await readAllTransactions(app, key, bankAccountId);
    first = items;
    expect(items).toHaveLength(sync.counts.listed);
    expect(new Set(items.map((item) => item.transactionId)).size).toBe(items.length);
    // Booking order, with the time where the bank gives it.
    const order = items.map((item) => item.bookedAt);
    expect(order).toEqual([...order].sort());
    expect(items[0]!.bookedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+09:00$/);
    const [account] = await listBankAccounts(app, key);
    expect(account!.balance).toBe(items.at(-1)!.balanceAfter);
    expect(account!.lastSyncedAt).toBe(START.at.toISOString());
  });

  it('changes nothing on a second sync of the same moment', async () => {
    const sync = await syncAndWait(app, key, bankAccountId);
    expect(sync.counts).toMatchObject({ created: 0, updated: 0 });
    expect(sync.counts.unchanged).toBe(sync.counts.listed);
    expect((await readAllTransactions(app, key, bankAccountId)).items).toEqual(first);
  });

  it('a week later adds the new lines and updates the corrected one in place', async () => {
    now = new Date(START.at.getTime() + 7 * DAY_MS);
    const { cursor: before } = await readAllTransactions(app, key, bankAccountId);
    const sync = await syncAndWait(app, key, bankAccountId);
    expect(sync.from).toBe(addDays(START.day, -7));
    expect(sync.counts.created).toBeGreaterThan(0);
    expect(sync.counts.updated).toBe(1);
    const { items } = await readAllTransactions(app, key, bankAccountId);
    expect(items).toHaveLength(first.length + sync.counts.created);
    expect(new Set(items.map((item) => item.transactionId)).size).toBe(items.length);
    // The first line of the first sync's last day was corrected: same id, same amount, new memo.
    const original = first.find((item) => item.bookedDate === START.day)!;
    const corrected = items.find((item) => item.transactionId === original.transactionId)!;
    expect(original.memo).toBe('타행이체');
    expect(corrected).toMatchObject({ memo: '타행이체(정정)', amount: original.amount,
      bookedAt: original.bookedAt, balanceAfter: original.balanceAfter });
    expect(corrected.counterpartyName).not.toBe(original.counterpartyName);
    expect(corrected.changedAt).toBe(now.toISOString());
    // A client that kept the cursor reads exactly the new lines after it.
    const after = await readAllTransactions(app, key, bankAccountId, { cursor: before });
    expect(after.items).toHaveLength(sync.counts.created);
    expect(after.items.every((item) => item.bookedDate > START.day ||
      !first.some((known) => known.transactionId === item.transactionId))).toBe(true);
  });

  it('keeps twins (same amount, minute and sender) as two transactions', async () => {
    const { items } = await readAllTransactions(app, key, bankAccountId);
    const twins = items.filter((item, index) => index > 0 &&
      items[index - 1]!.bookedAt.slice(0, 16) === item.bookedAt.slice(0, 16) &&
      items[index - 1]!.amount === item.amount &&
      items[index - 1]!.counterpartyName === item.counterpartyName &&
      items[index - 1]!.direction === item.direction);
    expect(twins.length).toBeGreaterThanOrEqual(10);
    for (const twin of twins) {
      const index = items.indexOf(twin);
      expect(items[index - 1]!.transactionId).not.toBe(twin.transactionId);
      expect(items[index - 1]!.balanceAfter).not.toBe(twin.balanceAfter);
    }
    // Nothing else doubled: every line is at one place.
    expect(new Set(items.map(lineKey)).size).toBeGreaterThanOrEqual(items.length - twins.length);
  });

  it('filters by booking day and pages with limits', async () => {
    const day = addDays(START.day, -1);
    const { items } = await readAllTransactions(app, key, bankAccountId, { from: day, to: day });
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((item) => item.bookedDate === day)).toBe(true);
    const page = await readTransactions(app, key, bankAccountId, { limit: '3' });
    expect(page.items).toHaveLength(3);
    expect(page.hasMore).toBe(true);
    const next = await readTransactions(app, key, bankAccountId, { limit: '3',
      cursor: page.nextCursor });
    expect(next.items[0]!.transactionId).not.toBe(page.items[2]!.transactionId);
    expect((await readTransactions(app, key, bankAccountId)).items).toHaveLength(100);
  });

  it('announces syncs and new transactions, up to 100 per event', async () => {
    const events = async (type: string) => {
      const response = await app.server.inject(request(key, 'GET',
        `/v1/webhookEvents?type=${type}&limit=100`));
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as { results: Array<{ data: Record<string, unknown> }> }).results;
    };
    const synced = await events('BANK_ACCOUNT_SYNCED');
    expect(synced).toHaveLength(3);
    expect(synced.every((event) => event.data.bankAccountId === bankAccountId)).toBe(true);
    const created = await events('BANK_TRANSACTION_CREATED');
    const ids = created.flatMap((event) => event.data.transactionIds as string[]);
    const { items } = await readAllTransactions(app, key, bankAccountId);
    expect(new Set(ids)).toEqual(new Set(items.map((item) => item.transactionId)));
    expect(ids).toHaveLength(items.length);
    expect(created.every((event) => (event.data.transactionIds as string[]).length <= 100))
      .toBe(true);
  });

  it('keeps test and live apart, and other accounts out', async () => {
    expect(await listBankAccounts(app, liveKey)).toEqual([]);
    const other = await app.createAccount({ plan: 'STANDARD' });
    for (const otherKey of [liveKey, other.keys.test]) {
      for (const [method, url] of [['GET', `/v1/bankAccounts/${bankAccountId}/transactions`],
        ['POST', `/v1/bankAccounts/${bankAccountId}:sync`]] as const) {
        const response = await app.server.inject(request(otherKey, method, url));
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toMatchObject({ code: 'NOT_FOUND' });
      }
    }
    // The same bank account connected by another account is another bank account.
    const theirs = await connectBankAccount(app, other.keys.test, '004', '110123456789');
    expect(theirs.bankAccountId).not.toBe(bankAccountId);
    expect((await readTransactions(app, other.keys.test, theirs.bankAccountId)).items)
      .toEqual([]);
    const syncId = (await app.server.inject(request(key, 'GET', '/v1/webhookEvents?' +
      'type=BANK_ACCOUNT_SYNCED&limit=1'))).json().results[0].data.syncId as string;
    const foreign = await app.server.inject(request(other.keys.test, 'GET',
      `/v1/bankAccounts/${theirs.bankAccountId}/syncs/${syncId}`));
    expect(foreign.statusCode).toBe(404);
  });

  it('keeps the id and the transactions when the account is connected again', async () => {
    const [account] = await listBankAccounts(app, key);
    const removed = await app.server.inject(request(key, 'DELETE',
      `/v1/connections/${account!.connectionId}`));
    expect(removed.statusCode).toBe(204);
    expect(await listBankAccounts(app, key)).toEqual([]);
    // Still readable; a sync needs the connection again.
    expect((await readTransactions(app, key, bankAccountId)).items.length).toBe(100);
    const refused = await app.server.inject(request(key, 'POST',
      `/v1/bankAccounts/${bankAccountId}:sync`));
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'CONNECTION_REQUIRED' });
    const again = await connectBankAccount(app, key, '004', '110123456789');
    expect(again.bankAccountId).toBe(bankAccountId);
    expect(again.balance).not.toBeNull();
  });
});

describe('failing sandbox accounts', () => {
  it('fails the sync of an account whose password the bank no longer accepts', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    const account = await connectBankAccount(app, keys.test, '088', '1101239001');
    const sync = await waitForSync(app, keys.test, account.bankAccountId,
      await requestSync(app, keys.test, account.bankAccountId));
    expect(sync).toMatchObject({ state: 'FAILED', failure: { code: 'INVALID_CREDENTIALS' },
      counts: { created: 0 } });
    const [listed] = await listBankAccounts(app, keys.test);
    expect(listed).toMatchObject({ state: 'FAILED', failure: { code: 'INVALID_CREDENTIALS' },
      balance: null });
    const failed = (await app.server.inject(request(keys.test, 'GET',
      '/v1/webhookEvents?type=BANK_ACCOUNT_SYNC_FAILED'))).json().results;
    expect(failed).toHaveLength(1);
    expect(failed[0].data).toMatchObject({ bankAccountId: account.bankAccountId,
      syncId: sync.syncId, cause: { code: 'INVALID_CREDENTIALS' } });
  });

  it('fails the sync of a bank that never answers after the timeout', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    const account = await connectBankAccount(app, keys.test, '088', '1101239002');
    const sync = await waitForSync(app, keys.test, account.bankAccountId,
      await requestSync(app, keys.test, account.bankAccountId));
    expect(sync).toMatchObject({ state: 'FAILED', failure: { code: 'BANK_UNAVAILABLE' } });
    // The connection itself is fine: the bank was only unreachable.
    expect((await listBankAccounts(app, keys.test))[0]).toMatchObject({ state: 'CONNECTED' });
  });
});

describe('one sync at a time', () => {
  it('joins concurrent requests to one queued sync', async () => {
    const { keys } = await idle.createAccount({ plan: 'STANDARD' });
    const account = await connectBankAccount(idle, keys.test, '020', '1002123456789');
    const answers = await Promise.all(Array.from({ length: 8 }, () =>
      idle.server.inject(request(keys.test, 'POST',
        `/v1/bankAccounts/${account.bankAccountId}:sync`))));
    expect(answers.map((answer) => answer.statusCode)).toEqual(Array(8).fill(202));
    const ids = new Set(answers.map((answer) => answer.json().syncId as string));
    expect(ids.size).toBe(1);
    const rows = await idle.platform.database.db.execute(sql`select state from
      bank_account_syncs where bank_account_id = ${account.bankAccountId}`);
    expect(rows.rows).toEqual([{ state: 'QUEUED' }]);
    const [syncId] = [...ids];
    expect(await getSync(idle, keys.test, account.bankAccountId, syncId!))
      .toMatchObject({ state: 'QUEUED', from: null, to: null, startedAt: null });

    // A sync whose job gave up holds the place for six hours at most.
    now = new Date(now.getTime() + 6 * 3_600_000 + 1_000);
    const next = await requestSync(idle, keys.test, account.bankAccountId);
    expect(next).not.toBe(syncId);
    expect(await getSync(idle, keys.test, account.bankAccountId, syncId!))
      .toMatchObject({ state: 'FAILED', failure: { code: 'SYNC_ABANDONED' } });
    expect(await requestSync(idle, keys.test, account.bankAccountId)).toBe(next);
  });
});

describe('one sync at a time across servers', () => {
  // Two API processes on one PostgreSQL database: the partial unique index, not the process,
  // decides. The embedded database serves one process only.
  it.runIf(process.env.DATABASE_URL)('joins requests made through two servers', async () => {
    // The same encryption key too (here the one generated in DATA_DIR): a request for a sync
    // opens the account's sealed credentials for its number.
    const other = await createTestApp({ now: clock, env: { WORKERS_ENABLED: 'false',
      AUTH_CACHE_TTL_MS: '0', DATABASE_URL: idle.platform.config.DATABASE_URL!,
      DATA_DIR: idle.platform.config.DATA_DIR } });
    try {
      const { keys } = await idle.createAccount({ plan: 'STANDARD' });
      const account = await connectBankAccount(idle, keys.test, '011', '3021234567891');
      const answers = await Promise.all(Array.from({ length: 6 }, (_, index) =>
        (index % 2 === 0 ? idle : other).server.inject(request(keys.test, 'POST',
          `/v1/bankAccounts/${account.bankAccountId}:sync`))));
      expect(answers.map((answer) => answer.statusCode)).toEqual(Array(6).fill(202));
      expect(new Set(answers.map((answer) => answer.json().syncId)).size).toBe(1);
    } finally {
      await other.close();
    }
  });
});

describe('matching hints', () => {
  it('names the issued sales invoice a deposit may pay', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    const { supplierKey } = await registerSupplier(app, keys.test);
    const account = await connectBankAccount(app, keys.test, '003', '22233344455');
    await syncAndWait(app, keys.test, account.bankAccountId);
    const today = seoulDate(now);
    const { items } = await readAllTransactions(app, keys.test, account.bankAccountId,
      { from: addDays(today, -20), to: today });
    const deposit = items.find((item) => item.direction === 'DEPOSIT' &&
      item.memo === '타행이체(정정)' && item.amount % 1_100 === 0)!;
    expect(deposit).toBeDefined();
    const units = deposit.amount / 1_100;
    const body = (name: string) => invoiceBody({ date: deposit.bookedDate,
      supplied: { ...invoiceBody().supplied as object, organizationName: name },
      items: [{ date: deposit.bookedDate, name: '용역', supplyCost: units * 1_000,
        tax: units * 100 }] });
    // Written with the legal form the bank's print leaves out: still the sender.
    const name = deposit.counterpartyName!.startsWith('(주)') ? deposit.counterpartyName!
      : `주식회사 ${deposit.counterpartyName!.replace(/^주식회사 /, '')}`;
    const matching = await issueTransmitted(app, keys.test, supplierKey, body(name));
    await issueTransmitted(app, keys.test, supplierKey, body('주식회사 다른거래처'));
    const { items: after } = await readAllTransactions(app, keys.test, account.bankAccountId,
      { from: deposit.bookedDate, to: deposit.bookedDate });
    const hinted = after.find((item) => item.transactionId === deposit.transactionId)!;
    expect(hinted.matchedTaxInvoices).toEqual([{ source: 'ISSUED_HERE',
      issuanceKey: matching.issuanceKey, approvalNumber: matching.ntsTransactionId,
      totalAmount: deposit.amount, writeDate: deposit.bookedDate }]);
    expect(after.filter((item) => item.matchedTaxInvoices.length > 0)).toHaveLength(1);
    // Another account's deposits never point at this account's invoices.
    expect(first(after).length).toBeGreaterThan(0);
  });
});

const first = <T>(list: T[]) => list;

describe('bad input', () => {
  let key: string;
  let bankAccountId: string;

  beforeAll(async () => {
    const { keys } = await idle.createAccount({ plan: 'STANDARD' });
    key = keys.test;
    bankAccountId = (await connectBankAccount(idle, key, '081', '123456789012'))
      .bankAccountId;
  });

  const status = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const response = await idle.server.inject(request(key, method, url, { body }));
    return { status: response.statusCode, code: (response.json() as { code?: string }).code };
  };

  it('refuses malformed ids, dates, cursors and limits with 400', async () => {
    const base = `/v1/bankAccounts/${bankAccountId}/transactions`;
    for (const url of [
      '/v1/bankAccounts/bad%20id/transactions',
      `${base}?from=2026-13-01`,
      `${base}?to=yesterday`,
      `${base}?from=2026-11-02&to=2026-11-01`,
      `${base}?cursor=not-a-cursor`,
      `${base}?cursor=${Buffer.from('[1,2]').toString('base64url')}`,
      `${base}?cursor=${Buffer.from('["2026-11-01",-1]').toString('base64url')}`,
      // Tampered cursors the database cannot compare: no such month or day, a sequence past
      // the column's integer type.
      `${base}?cursor=${Buffer.from('["2026-13-45",1]').toString('base64url')}`,
      `${base}?cursor=${Buffer.from('["2026-02-30",1]').toString('base64url')}`,
      `${base}?cursor=${Buffer.from('["0000-01-01",1]').toString('base64url')}`,
      `${base}?cursor=${Buffer.from(`["2026-11-01",${2 ** 31}]`).toString('base64url')}`,
      `${base}?cursor=${Buffer.from('["2026-11-01",1e300]').toString('base64url')}`,
      `${base}?limit=0`,
      `${base}?limit=1001`,
      `${base}?limit=ten`,
      `${base}?unknown=1`,
      `/v1/bankAccounts/${bankAccountId}/syncs/bad%20id`,
    ]) {
      expect(await status('GET', url), url).toEqual({ status: 400, code: 'INVALID_REQUEST' });
    }
    expect(await status('POST', `/v1/bankAccounts/${bankAccountId}:sync`, { from: 'x' }))
      .toEqual({ status: 400, code: 'INVALID_REQUEST' });
  });

  it('answers 404 for unknown accounts and syncs', async () => {
    for (const [method, url] of [
      ['GET', '/v1/bankAccounts/bac_unknown/transactions'],
      ['POST', '/v1/bankAccounts/bac_unknown:sync'],
      ['GET', '/v1/bankAccounts/bac_unknown/syncs/bsy_unknown'],
      ['GET', `/v1/bankAccounts/${bankAccountId}/syncs/bsy_unknown`],
    ] as const) {
      expect(await status(method, url), url).toEqual({ status: 404, code: 'NOT_FOUND' });
    }
  });

  it('takes the largest documented limit', async () => {
    const response = await idle.server.inject(request(key, 'GET',
      `/v1/bankAccounts/${bankAccountId}/transactions?limit=1000`));
    expect(response.statusCode).toBe(200);
  });
});

describe('credentials', () => {
  it('never appear in a response or a log line', () => {
    expect(bodies.length).toBeGreaterThan(10);
    expect(logLines.some((line) => line.includes('bank account sync finished'))).toBe(true);
    for (const secret of [BANK_PASSWORD, '110123456789', '110-123-456789', '1101239001']) {
      expect(bodies.filter((body) => body.includes(secret)), secret).toEqual([]);
      expect(logLines.filter((line) => line.includes(secret)), secret).toEqual([]);
    }
    expect(bodies.some((body) => body.includes(BANK_USER_ID))).toBe(false);
  });
});
