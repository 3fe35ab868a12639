// `etax holidays add|list|remove`, tested black-box against the database of a running app: a
// day added moves the issue deadline the app computes once its copy of the days is older than
// HOLIDAYS_REFRESH_MS, and a day removed moves it back. At start, the app warns when the table
// and the added days end within a year.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { HOLIDAYS_REFRESH_MS } from '../../src/areas/tax-invoices/holidays/calendar.ts';
import { addHoliday } from '../../src/areas/tax-invoices/holidays/store.ts';
import { loadConfig } from '../../src/config.ts';
import { addDays, vatReturnDeadline } from '../../src/domain/business-days.ts';
import { createSupplierAccount, request, today } from '../api/tax-invoices/helpers.ts';
import {
  createReverseTestApp,
  decide,
  newRequest,
  type ReverseTestApp,
} from '../api/tax-invoices/reverse-helpers.ts';
import { expectError } from '../helpers/errors.ts';
import { runEtax, runEtaxJson } from '../helpers/cli.ts';
import { createTestDatabase } from '../helpers/database.ts';

let app: ReverseTestApp;
let key: string;

const runCli = (args: string[]) => runEtax(app.database.env, args);
const runCliJson = (args: string[]) => runEtaxJson(app.database.env, args);

beforeAll(async () => {
  app = await createReverseTestApp();
  key = (await app.platform.accounts.createAccount({ name: 'Holidays', plan: 'FREE' })).keys.test;
});
afterAll(async () => {
  await app?.close();
});

// The deadline the app answers once its copy of the added days has gone stale.
async function dueDateAfterRefresh(date: string): Promise<string> {
  app.clock.offsetMs += HOLIDAYS_REFRESH_MS + 1_000;
  const response = await app.server.inject(request(key, 'GET',
    `/v1/taxInvoiceIssueDueDates?date=${date}`));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issueDueDate: string }).issueDueDate;
}

describe('etax holidays', () => {
  it('adds a day past the table, which moves the deadline; lists it; removes it', async () => {
    // 2029-01-10 is a Wednesday, after the year the built-in table ends with.
    expect(await dueDateAfterRefresh('2028-12-20')).toBe('2029-01-10');
    expect(await runCliJson(['holidays', 'add', '2029-01-10', '--name', '임시공휴일']))
      .toEqual({ date: '2029-01-10', name: '임시공휴일' });
    expect(await runCliJson(['holidays', 'list']))
      .toEqual({ holidays: [{ date: '2029-01-10', name: '임시공휴일' }] });
    expect(await dueDateAfterRefresh('2028-12-20')).toBe('2029-01-11');

    const listed = await runCli(['holidays', 'list']);
    expect(listed.stdout).toBe('2029-01-10 임시공휴일\n');
    expect(await runCliJson(['holidays', 'remove', '2029-01-10']))
      .toEqual({ removed: '2029-01-10' });
    expect(await dueDateAfterRefresh('2028-12-20')).toBe('2029-01-10');
    expect((await runCli(['holidays', 'list'])).stdout).toBe('no holidays added\n');
  });

  it('refuses a date that is not a calendar date, a blank name, and an unknown removal',
    async () => {
      for (const args of [['add', '2029-02-30', '--name', 'x'], ['add', '2029-1-10', '--name',
        'x'], ['add', '2029-01-10', '--name', ' '], ['remove', '2029-03-03']]) {
        const result = await runCli(['holidays', ...args]);
        expect(result.code, args.join(' ')).not.toBe(0);
        expect(result.stderr).toMatch(/calendar date|--name|not an added holiday/);
      }
      expect((await runCli(['holidays', 'list'])).stdout).toBe('no holidays added\n');
    });
});

describe('the reverse approval deadline', () => {
  it('moves with a day added after the request was recorded', async () => {
    const buyer = await createSupplierAccount(app, 'Buyer');
    const supplierKey = buyer.supplier.supplierKey;
    const issuanceKey = await newRequest(app, buyer.key, supplierKey);
    // After the issue deadline the request is approved as a late issuance until the VAT
    // return deadline of its tax period; that limit moves with an added day as well.
    const limit = vatReturnDeadline(today())!;
    // 01:00 in Seoul on the day after the late-issuance limit.
    app.clock.offsetMs = Date.parse(`${addDays(limit, 1)}T01:00:00+09:00`) - Date.now();
    expectError(await decide(app, buyer.key, issuanceKey, 'approve', { supplierKey }), 409,
      'ISSUE_DEADLINE_PASSED');
    await runCliJson(['holidays', 'add', limit, '--name', '임시공휴일']);
    try {
      app.clock.offsetMs += HOLIDAYS_REFRESH_MS + 1_000;
      const approved = await decide(app, buyer.key, issuanceKey, 'approve', { supplierKey });
      expect(approved.statusCode, approved.body).toBe(200);
    } finally {
      await runCliJson(['holidays', 'remove', limit]);
    }
  });
});

describe('the warning at start', () => {
  // Starts an app on a new database whose clock reads `today`, and returns its warn lines.
  async function warningsAtStart(today: string, added: string[]): Promise<string[]> {
    const database = await createTestDatabase();
    const lines: string[] = [];
    const config = loadConfig({ LOG_LEVEL: 'warn', REDIS_URL: undefined, ...database.env,
      WORKERS_ENABLED: 'false' });
    const started = await createApp(config, { outside: {
      now: () => new Date(`${today}T00:00:00Z`),
      logDestination: new Writable({ write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      } }) } });
    try {
      for (const date of added) {
        await addHoliday(started.platform.database.db, { date, name: '설날' });
      }
      await started.start();
    } finally {
      await started.close();
      await database.drop();
    }
    return lines.map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === 40 && line.msg.includes('holidays are known'))
      .map((line) => line.msg);
  }

  it('warns once when the table ends within a year, and not when added days reach past it',
    async () => {
      const warnings = await warningsAtStart('2028-03-01', []);
      expect(warnings).toEqual([expect.stringContaining(
        'holidays are known only through 2028-12-31')]);
      expect(await warningsAtStart('2028-03-01', ['2029-01-24'])).toEqual([]);
      expect(await warningsAtStart('2027-12-31', [])).toEqual([]);
    });
});
