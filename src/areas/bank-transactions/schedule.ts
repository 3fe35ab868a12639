import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import { scheduleTickJob, type JobDefinition } from '../../platform/jobs.ts';
import type { ConnectionsService } from '../connections/index.ts';
import { bankAccountIdOf, type BankTransactionsService } from './service.ts';
import * as store from './store.ts';

// The sync schedule (docs/bank-transactions.md § The schedule): when
// BANK_ACCOUNT_SYNC_INTERVAL_MINUTES is above 0, a job every minute queues a sync of every
// CONNECTED bank account whose last sync was requested at least that long ago. A sync already
// queued or running is joined, so the schedule never runs two of an account at once, and the
// cron job itself runs in one process of the cluster at a time (pg-boss schedules).

const SCHEDULE_QUEUE = 'bank-transactions.schedule';
const SCHEDULE_CRON = '* * * * *';
const PAGE_ROWS = 500;

type ScheduleDeps = {
  db: Db;
  connections: ConnectionsService;
  service: BankTransactionsService;
  bankAvailable(environment: Environment): boolean;
  intervalMinutes: number;
  now: () => Date;
  log: Logger;
};

export function createSyncSchedule(deps: ScheduleDeps) {
  const intervalMs = deps.intervalMinutes * 60_000;

  // Queues the syncs that are due now; returns how many it queued.
  async function tick(): Promise<number> {
    let queued = 0;
    let after: string | null = null;
    for (;;) {
      const page = await deps.connections.connectedBankAccountsAfter(after, PAGE_ROWS);
      if (page.length === 0) break;
      after = page.at(-1)!.connection.id;
      const entries = page.filter(({ scope }) => deps.bankAvailable(scope.environment))
        .map((entry) => ({ entry, id: bankAccountIdOf(entry.scope, entry.bankCode,
          entry.accountNumber) }));
      const last = await store.lastRequestedAt(deps.db, entries.map(({ id }) => id));
      const now = deps.now().getTime();
      for (const { entry, id } of entries) {
        const previous = last.get(id);
        if (previous !== undefined && now - previous.getTime() < intervalMs) continue;
        const result = await deps.db.transaction((tx) =>
          deps.service.queueSync(tx, entry.scope, id, entry, 'SCHEDULE'));
        if (result !== null && !result.joined) queued += 1;
      }
    }
    if (queued > 0) deps.log.info({ queued }, 'bank account syncs scheduled');
    return queued;
  }

  return { tick };
}

export function scheduleJobDefinition(schedule: ReturnType<typeof createSyncSchedule>):
  JobDefinition<object> {
  return scheduleTickJob({ queue: SCHEDULE_QUEUE, cron: SCHEDULE_CRON, expireInSeconds: 300,
    tick: schedule.tick });
}
