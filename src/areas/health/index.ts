import type { AreaModule } from '../../platform/module.ts';
import type { Platform } from '../../platform/platform.ts';
import { committedMigrationCount, migrationsApplied } from '../../platform/db/migrate.ts';
import { unconfiguredLiveServices } from '../../platform/live-services.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { loggingReadinessChanges } from './readiness-log.ts';
import { registerHealthRoutes } from './routes.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Health',
    description: 'Liveness and readiness probes for process managers and load balancers.',
    guides: [],
  },
];

// Liveness and readiness for process managers and load balancers (docs/operations.md); outside
// /v1 and without authentication.
export async function createHealthModule(platform: Platform): Promise<AreaModule> {
  const { pool } = platform.database;
  const expectedMigrations = await committedMigrationCount();
  const readiness = loggingReadinessChanges(async () => {
    await pool.query('select 1');
    return { database: true, migrations: await migrationsApplied(pool, expectedMigrations) };
  }, platform.log);
  return {
    name: 'health',
    reference: REFERENCE,
    pages: async (app) => app.register(registerHealthRoutes,
      { readiness, notConfigured: unconfiguredLiveServices(platform.config) }),
  };
}
