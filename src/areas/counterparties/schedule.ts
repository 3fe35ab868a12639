import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import { scheduleTickJob, type JobDefinition } from '../../platform/jobs.ts';
import { NUMBERS_PER_CALL_MAX } from '../../upstream/tax-authority/index.ts';
import type { CounterpartiesService } from './service.ts';
import * as store from './store.ts';

// The status schedule (docs/counterparties.md § Registration status): every hour a job checks
// again the counterparties with `autoRefreshStatus` whose status was never checked or was
// checked more than STATUS_REFRESH_DAYS ago, through the same service (and at the same price)
// as a person's refresh, a call per scope and hundred numbers. A scope whose check is refused
// (no points, the authority does not answer) is logged and tried again at the next tick; the
// cron job runs in one process of the cluster at a time (pg-boss schedules).

const STATUS_SCHEDULE_QUEUE = 'counterparties.status-schedule';
const STATUS_REFRESH_DAYS = 7;
const SCHEDULE_CRON = '17 * * * *';
const TICK_ROWS_MAX = 2_000;

type ScheduleDeps = {
  db: Db;
  service: Pick<CounterpartiesService, 'checkStatuses'>;
  now: () => Date;
  log: Logger;
};

export function createStatusSchedule(deps: ScheduleDeps) {
  // Checks what is due now; returns how many numbers were checked.
  async function tick(): Promise<number> {
    const checkedBefore = new Date(deps.now().getTime() - STATUS_REFRESH_DAYS * 86_400_000);
    const due = await store.dueForRefresh(deps.db, checkedBefore, TICK_ROWS_MAX);
    const byScope = new Map<string, { accountId: string; environment: Environment;
      numbers: Set<string> }>();
    for (const row of due) {
      const key = `${row.accountId}/${row.environment}`;
      const entry = byScope.get(key) ?? { accountId: row.accountId,
        environment: row.environment as Environment, numbers: new Set<string>() };
      entry.numbers.add(row.businessRegistrationNumber);
      byScope.set(key, entry);
    }
    let checked = 0;
    for (const { accountId, environment, numbers } of byScope.values()) {
      const all = [...numbers];
      for (let start = 0; start < all.length; start += NUMBERS_PER_CALL_MAX) {
        const chunk = all.slice(start, start + NUMBERS_PER_CALL_MAX);
        try {
          await deps.service.checkStatuses({ accountId, environment }, chunk);
          checked += chunk.length;
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          deps.log.warn({ accountId, environment, code: error.code },
            'counterparty status check refused; tried again at the next tick');
          break;
        }
      }
    }
    if (checked > 0) deps.log.info({ checked }, 'counterparty statuses checked');
    return checked;
  }
  return { tick };
}

export function statusScheduleJob(schedule: ReturnType<typeof createStatusSchedule>):
  JobDefinition<object> {
  return scheduleTickJob({ queue: STATUS_SCHEDULE_QUEUE, cron: SCHEDULE_CRON,
    expireInSeconds: 900, tick: schedule.tick });
}
