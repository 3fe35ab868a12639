import { createHash } from 'node:crypto';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import pg from 'pg';
import type { Executor } from './executor.ts';

// Statements run many times a second (the inserts and debits of every accepted request, the
// workers' steps) as named prepared statements. An unnamed statement is parsed, analysed and
// planned on every run; for the ledger's debit that was more than its execution. A named one is
// parsed once per connection, and after five runs PostgreSQL keeps a generic plan when it costs
// no more than the custom ones. Use it only for statements whose best plan does not depend on
// the values bound (no range or status test whose selectivity varies), that read no table whose
// size swings (a queue that empties and fills: the generic plan is made with the sizes of its
// moment and kept by the connection, so a plan for an empty queue meets a full one), and whose
// text takes a bounded number of forms: each form is prepared once on every connection that
// runs it.
//
// The name is a hash of the text, so two texts never share a name (node-postgres refuses a name
// reused with another text). The embedded database serves every connection from one PGlite
// session, where one connection's statement names would collide with another's, so there the
// statements stay unnamed: pools opened with PreparingClient are the ones that name them.

export class PreparingClient extends pg.Client {}

type SessionOf = { _: { session: {
  client: unknown;
  prepareQuery(query: { sql: string; params: unknown[] }, fields: undefined, name: string |
    undefined, arrayMode: boolean): { execute(): Promise<pg.QueryResult> };
} } };

const dialect = new PgDialect();
const namesByText = new Map<string, string>();
// Far above the forms our statements take; a text beyond it runs unnamed.
const NAMED_TEXTS_MAX = 500;

function preparesNamed(client: unknown): boolean {
  return client instanceof PreparingClient ||
    (client instanceof pg.Pool && (client as unknown as { Client: unknown }).Client ===
      PreparingClient);
}

function nameOf(text: string): string | undefined {
  let name = namesByText.get(text);
  if (name === undefined && namesByText.size < NAMED_TEXTS_MAX) {
    name = `etax_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    namesByText.set(text, name);
  }
  return name;
}

export async function executePrepared<Row extends Record<string, unknown>>(
  executor: Executor, query: SQL): Promise<pg.QueryResult<Row>> {
  const { session } = (executor as unknown as SessionOf)._;
  const { sql: text, params } = dialect.sqlToQuery(query);
  const name = preparesNamed(session.client) ? nameOf(text) : undefined;
  const result = await session.prepareQuery({ sql: text, params }, undefined, name, false)
    .execute();
  return result as pg.QueryResult<Row>;
}
