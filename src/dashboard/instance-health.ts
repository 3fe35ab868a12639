import { sql } from 'drizzle-orm';
import { unconfiguredLiveServices } from '../platform/live-services.ts';
import type { DashboardDeps } from './context.ts';

// The instance's health as the operator's page shows it: whether the database answers, where
// rate-limit counts are kept (Redis, or memory as its fallback), the jobs waiting in each queue,
// and which live gateways are not configured (live calls of that kind answer 503 until they
// are). Read fresh on every request: nothing here is cached.

export type InstanceHealth = {
  database: { ok: true } | { ok: false; error: string };
  rateLimits: ReturnType<DashboardDeps['rateLimiter']['countingIn']>;
  // Jobs created or waiting to be retried, per queue; null when the queue could not be read.
  queues: Array<{ name: string; waiting: number }> | null;
  unconfigured: string[];
};

export async function readInstanceHealth(deps: Pick<DashboardDeps, 'platform' | 'rateLimiter'>):
  Promise<InstanceHealth> {
  const { platform } = deps;
  let database: InstanceHealth['database'] = { ok: true };
  try {
    await platform.database.db.execute(sql`select 1`);
  } catch (error) {
    database = { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  let queues: InstanceHealth['queues'] = null;
  if (database.ok) {
    try {
      const { boss } = platform.jobs;
      // pg-boss's own queues (`__pgboss__…`) are its bookkeeping, not work of etax.
      const names = (await boss.getQueues()).map((queue) => queue.name)
        .filter((name) => !name.startsWith('__pgboss')).sort();
      queues = await Promise.all(names.map(async (name) =>
        ({ name, waiting: await boss.getQueueSize(name) })));
    } catch {
      // pg-boss not started (a process with no job queues): the backlog is unknown here.
      queues = null;
    }
  }
  // The live services' settings (the API's own list), and mail, which is kept rather than sent
  // without SMTP_URL.
  const unconfigured = [
    ...unconfiguredLiveServices(platform.config).map(({ setting }) => setting),
    ...(platform.config.SMTP_URL === undefined ? ['SMTP_URL'] : []),
  ];
  return { database, rateLimits: deps.rateLimiter.countingIn(), queues, unconfigured };
}
