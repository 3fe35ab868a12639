// Several server processes started together against one PostgreSQL must all come up: migrations
// and job-queue setup take turns under advisory locks instead of racing or deadlocking.
// PostgreSQL only: an embedded database belongs to the one process that opened it.
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { committedMigrationCount } from '../../src/platform/db/migrate.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';

const APP_COUNT = 3;
let database: TestDatabase | null = null;
let apps: App[] = [];

afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await database?.drop();
});

describe.skipIf(!usingPostgres)('starting several processes at once', () => {
  it('brings every one up with migrations applied once and the expiry job scheduled', async () => {
    // Empty, not a copy of the migrated template: the processes must migrate it themselves.
    database = await createTestDatabase({ empty: true });
    const config = loadConfig({ LOG_LEVEL: 'silent', ...database.env });
    const results = await Promise.allSettled(
      Array.from({ length: APP_COUNT }, async () => {
        const app = await createApp(config);
        await app.start();
        return app;
      }),
    );
    apps = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    const failures = results.filter((result) => result.status === 'rejected');
    const reasons = failures.map((failure) => String((failure as PromiseRejectedResult).reason));
    expect(reasons).toEqual([]);
    const ready = await Promise.all(apps.map((app) => app.server.inject('/readyz')));
    expect(ready.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    const pool = apps[0]!.platform.database.pool;
    const migrations = await pool.query(
      'select count(*)::int as count from drizzle.__drizzle_migrations',
    );
    // Each committed migration once, however many processes ran them.
    expect(migrations.rows[0].count).toBe(await committedMigrationCount());
    const schedules = await apps[0]!.jobs.boss.getSchedules();
    expect(schedules.map((schedule) => schedule.name)).toContain('points-expire-reservations');
  });
});
