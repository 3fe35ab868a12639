// The bank account sync schedule (docs/bank-transactions.md § The schedule): off unless
// BANK_ACCOUNT_SYNC_INTERVAL_MINUTES is set; when set, it queues a sync of every CONNECTED bank
// account of every account once the interval passed since its last sync was requested, by the
// app's clock, and never a second one while one is queued or running.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { connectBankAccount, requestSync, waitForSync } from './helpers.ts';

const MINUTE_MS = 60_000;
let now = new Date(Date.now() + 3_600_000);
const clock = () => now;

let app: TestApp;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, now: clock, env: {
    BANK_ACCOUNT_SYNC_INTERVAL_MINUTES: '60', AUTH_CACHE_TTL_MS: '0',
    CONNECTION_GATEWAY_TIMEOUT_MS: '5000' } });
});

afterAll(async () => {
  await app?.close();
});

type SyncRow = { bank_account_id: string; trigger: string; state: string };

async function syncRows(): Promise<SyncRow[]> {
  const result = await app.platform.database.db.execute(sql`select bank_account_id, trigger,
    state from bank_account_syncs order by requested_at, id`);
  return result.rows as SyncRow[];
}

const settled = (rows: SyncRow[]) =>
  rows.every((row) => row.state === 'SUCCEEDED' || row.state === 'FAILED');

describe('schedule', () => {
  it('is off by default: no schedule queue, nothing queued', async () => {
    const plain = await createTestApp();
    try {
      const queues = (plain.bankTransactions.jobs ?? []).map((job) => job.queue);
      expect(queues).toEqual(['bank-transactions.sync']);
      const scheduled = (app.bankTransactions.jobs ?? []).map((job) => job.queue);
      expect(scheduled).toContain('bank-transactions.schedule');
    } finally {
      await plain.close();
    }
  });

  it('syncs every connected account of every account, again after the interval', async () => {
    const first = await app.createAccount({ plan: 'STANDARD' });
    const second = await app.createAccount({ plan: 'STANDARD' });
    const accounts = [
      await connectBankAccount(app, first.keys.test, '004', '110123456789'),
      await connectBankAccount(app, first.keys.test, '020', '1002987654321'),
      await connectBankAccount(app, second.keys.test, '088', '110555666777'),
    ];
    // An account whose sync fails at the bank is FAILED, and the schedule leaves it alone.
    const broken = await connectBankAccount(app, second.keys.test, '088', '1105559001');
    const failed = await waitForSync(app, second.keys.test, broken.bankAccountId,
      await requestSync(app, second.keys.test, broken.bankAccountId));
    expect(failed.state).toBe('FAILED');

    await app.bankTransactions.syncDueAccounts();
    let rows = await pollUntil(syncRows, settled);
    const scheduled = rows.filter((row) => row.trigger === 'SCHEDULE');
    expect(scheduled.map((row) => row.bank_account_id).sort())
      .toEqual(accounts.map((account) => account.bankAccountId).sort());
    expect(scheduled.every((row) => row.state === 'SUCCEEDED')).toBe(true);

    // Within the interval nothing is due.
    now = new Date(now.getTime() + 59 * MINUTE_MS);
    expect(await app.bankTransactions.syncDueAccounts()).toBe(0);
    expect(await syncRows()).toHaveLength(rows.length);

    now = new Date(now.getTime() + 2 * MINUTE_MS);
    expect(await app.bankTransactions.syncDueAccounts()).toBe(3);
    rows = await pollUntil(syncRows, settled);
    for (const account of accounts) {
      expect(rows.filter((row) => row.bank_account_id === account.bankAccountId &&
        row.trigger === 'SCHEDULE' && row.state === 'SUCCEEDED'), account.bankAccountId)
        .toHaveLength(2);
    }
    expect(rows.filter((row) => row.bank_account_id === broken.bankAccountId)).toHaveLength(1);
  });

  it('joins a sync still running instead of queueing a second', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    // The sandbox bank never answers this account: its sync runs until the gateway timeout.
    const slow = await connectBankAccount(app, keys.test, '004', '110777889002');
    now = new Date(now.getTime() + 2 * 60 * MINUTE_MS);
    expect(await app.bankTransactions.syncDueAccounts()).toBe(4);
    const ofSlow = async () => (await syncRows())
      .filter((row) => row.bank_account_id === slow.bankAccountId);
    expect(await pollUntil(ofSlow, (rows) => rows[0]?.state === 'RUNNING'))
      .toEqual([{ bank_account_id: slow.bankAccountId, trigger: 'SCHEDULE', state: 'RUNNING' }]);
    now = new Date(now.getTime() + 2 * 60 * MINUTE_MS);
    await Promise.all([app.bankTransactions.syncDueAccounts(),
      app.bankTransactions.syncDueAccounts()]);
    expect(await ofSlow()).toEqual([{ bank_account_id: slow.bankAccountId,
      trigger: 'SCHEDULE', state: 'RUNNING' }]);
    const done = await pollUntil(ofSlow, (rows) => rows[0]?.state === 'FAILED');
    expect(done).toHaveLength(1);
  });
});
