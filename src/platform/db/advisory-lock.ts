import type pg from 'pg';

// Lock ids of the setup steps that several etax processes may run at the same moment against
// one PostgreSQL. Any constants work; they only have to be the same in every process.
export const ADVISORY_LOCKS = {
  migrations: 7_265_001,
  jobQueues: 7_265_002,
} as const;

// Runs `work` while holding a session-level advisory lock, so processes that start together take
// turns instead of racing (or deadlocking) on the same DDL and rows.
export async function withAdvisoryLock<T>(
  pool: pg.Pool,
  lockId: number,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [lockId]);
    return await work(client);
  } finally {
    await client.query('select pg_advisory_unlock($1)', [lockId]).catch(() => {});
    client.release();
  }
}
