import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type * as schema from './tables.ts';

// The handles statements run on, apart from the connection code so that what runs statements
// (prepared.ts) and what connects can both name them.
export type Db = NodePgDatabase<typeof schema> & { $client: pg.Pool };
// A transaction handle; store functions take it (or the Db itself) as their first argument.
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type Executor = Db | Tx;
