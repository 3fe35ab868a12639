import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { cursorDate, cursorString, type CursorMember } from './cursor.ts';

// A timestamp column as a cursor position: to the microsecond, as PostgreSQL keeps it. A Date
// holds milliseconds only, so a page that continued after a Date would skip the rows made later
// in the same millisecond.

export function timestampPosition(column: SQLWrapper): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

// A position timestampPosition wrote: a UTC instant that exists, to the microsecond.
export const cursorTimestamp: CursorMember<string> = (value): value is string =>
  cursorString(/^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{6}Z$/)(value) &&
  cursorDate(value.slice(0, 10));
