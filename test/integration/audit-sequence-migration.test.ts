// Upgrading a database with an audit log to the release that orders the log by a sequence: the
// entries already recorded take their sequence in the order the log showed them (by time, then
// id), and the entries recorded after the upgrade come after every one of them. Method: the
// committed migrations up to the one before, entries written as that release wrote them, then
// every migration.
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '../helpers/database.ts';
import { MIGRATIONS_DIR, useDatabaseToUpgrade } from '../helpers/migrations.ts';

const upgraded = useDatabaseToUpgrade('0046_dashboard_audit_events_sequence');

describe.skipIf(!usingPostgres)('the migration of the audit log (PostgreSQL)', () => {
  it('numbers the entries already recorded by time then id, and the new ones after them',
    async () => {
      await upgraded.migrate(upgraded.earlierDir);
      await upgraded.pool.query(`insert into accounts (id, name, plan)
        values ('acc_migration', 'Migration', 'FREE')`);
      // Inserted out of the log's order: the physical order must not decide.
      for (const [id, at] of [['aud_c', '2026-01-01T00:00:02Z'], ['aud_b', '2026-01-01T00:00:01Z'],
        ['aud_a', '2026-01-01T00:00:01Z'], ['aud_d', '2026-01-01T00:00:00Z']]) {
        await upgraded.pool.query(`insert into dashboard_audit_events (id, account_id, action,
          created_at) values ($1, 'acc_migration', 'key.created', $2)`, [id, at]);
      }
      await upgraded.migrate(MIGRATIONS_DIR);
      await upgraded.pool.query(`insert into dashboard_audit_events (id, account_id, action)
        values ('aud_new', 'acc_migration', 'key.revoked')`);

      const { rows } = await upgraded.pool.query<{ id: string }>(`select id
        from dashboard_audit_events order by sequence`);
      expect(rows.map((row) => row.id)).toEqual(['aud_d', 'aud_a', 'aud_b', 'aud_c', 'aud_new']);
    });
});
