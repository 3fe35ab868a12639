import { getTableColumns, getTableName, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

// An insert of many rows as one parameter. Drizzle binds an insert of n rows of m columns as n × m
// parameters and builds it value by value, which costs about 0.1 ms a row for a wide table (a
// batch of 100 cash receipts: 9.6 ms to build, more than the database takes to insert it);
// PostgreSQL reads the same rows from one JSON array (json_populate_recordset) far faster.
// Every row must set the same columns; the others take their defaults. Values go as JSON:
// dates as ISO text, objects as JSON (for jsonb columns), and strings as the driver would send
// them, with any unpaired surrogate replaced (String.prototype.toWellFormed). Rows are inserted
// in the order given, so a serial column numbers them in that order.

type InsertOptions = {
  // true: a row that conflicts with any unique index is skipped; a column: only a row that
  // conflicts on that column's unique index is, and any other conflict fails the insert.
  onConflictDoNothing?: boolean | string;
  returning?: string;
};

// JSON.stringify writes an unpaired surrogate as a `\udxxx` escape and a pair as itself, so every
// such escape in its output is an unpaired surrogate, which PostgreSQL refuses in json text. Each
// becomes U+FFFD, as String.prototype.toWellFormed would have made it (and as the driver sends a
// string parameter). Done on the whole text: a replacer function that did it string by string
// kept JSON.stringify off its fast path, at about 4 % of a busy API's main thread.
const UNPAIRED_SURROGATE_ESCAPE = /(?<!\\)((?:\\\\)*)\\ud[89a-f][0-9a-f]{2}/g;

export function wellFormedJson(value: unknown): string {
  const json = JSON.stringify(value);
  return json.includes('\\ud') ? json.replace(UNPAIRED_SURROGATE_ESCAPE, '$1\\ufffd') : json;
}

// `"a", "b"`: the column list of an insert.
export const columnList = (names: readonly string[]) =>
  sql.raw(names.map((name) => `"${name}"`).join(', '));

// The rows as a query of the table's row type: `select <names> from json_populate_recordset(…)`,
// in the order given. Each record maps column names to values; a missing one is null.
export function selectJsonRows(table: PgTable, names: readonly string[],
  records: ReadonlyArray<Record<string, unknown>>): SQL {
  const list = columnList(names);
  return sql`select ${list} from json_populate_recordset(null::${sql.raw(
    `"${getTableName(table)}"`)}, ${wellFormedJson(records)}::json)
      with ordinality as given order by given.ordinality`;
}

function conflictClause(onConflictDoNothing: InsertOptions['onConflictDoNothing']): SQL {
  if (typeof onConflictDoNothing === 'string') {
    return sql.raw(`on conflict ("${onConflictDoNothing}") do nothing`);
  }
  return onConflictDoNothing === true ? sql`on conflict do nothing` : sql``;
}

export function insertJsonRows<Table extends PgTable>(table: Table,
  rows: ReadonlyArray<Table['$inferInsert']>, options: InsertOptions = {}): SQL {
  const columns = getTableColumns(table);
  const properties = Object.keys(rows[0] ?? {}).filter((property) =>
    (rows[0] as Record<string, unknown>)[property] !== undefined);
  const names = properties.map((property) => {
    const column = columns[property];
    if (column === undefined) throw new Error(`${getTableName(table)} has no ${property}`);
    return column.name;
  });
  const records = rows.map((row) => {
    const record = row as Record<string, unknown>;
    const given = Object.keys(record).filter((property) => record[property] !== undefined);
    if (given.length !== properties.length) {
      throw new Error(`insertJsonRows: the rows of ${getTableName(table)} set different columns`);
    }
    return Object.fromEntries(properties.map((property, index) =>
      [names[index], record[property]]));
  });
  const tableName = sql.raw(`"${getTableName(table)}"`);
  return sql`insert into ${tableName} (${columnList(names)})
    ${selectJsonRows(table, names, records)}
    ${conflictClause(options.onConflictDoNothing)}
    ${options.returning === undefined ? sql`` : sql.raw(`returning "${options.returning}"`)}`;
}
