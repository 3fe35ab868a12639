import { isCalendarDate } from '../domain/business-days.ts';
import { ApiError } from './errors.ts';

// Opaque page cursors: a short tuple of the last result's position, JSON in base64url. Clients
// pass them back unchanged; anything this service did not write is 400 INVALID_REQUEST. Each
// member is checked against the range of the column it is compared with, so a tampered cursor
// is refused here and never reaches the database as a value the column cannot hold (a day that
// does not exist, a number past the column's integer type).

export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function invalidCursor(): ApiError {
  return new ApiError('INVALID_REQUEST',
    'query.cursor is not a cursor returned by this operation.');
}

// A check of one member of a cursor's tuple.
export type CursorMember<T> = (value: unknown) => value is T;

// PostgreSQL's integer (int4) and bigint: a JavaScript number holds bigint's values up to
// Number.MAX_SAFE_INTEGER.
export const INTEGER_COLUMN_MAX = 2 ** 31 - 1;
export const BIGINT_COLUMN_MAX = Number.MAX_SAFE_INTEGER;

// A whole number from `min` to `max`, both included.
export function cursorInteger(min: number, max: number): CursorMember<number> {
  return (value): value is number => Number.isSafeInteger(value) &&
    (value as number) >= min && (value as number) <= max;
}

// A `YYYY-MM-DD` day that exists, in the years a date column holds.
export const cursorDate: CursorMember<string> = (value): value is string =>
  typeof value === 'string' && !value.startsWith('0000') && isCalendarDate(value);

// A string matching `pattern`.
export function cursorString(pattern: RegExp): CursorMember<string> {
  return (value): value is string => typeof value === 'string' && pattern.test(value);
}

type Members<T extends unknown[]> = { [K in keyof T]: CursorMember<T[K]> };

// The tuple of a cursor, each member checked by its own rule.
export function decodeCursorTuple<T extends unknown[]>(cursor: string, members: Members<T>): T {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(value) || value.length !== members.length) throw invalidCursor();
  const checks = members as readonly CursorMember<unknown>[];
  if (!checks.every((check, index) => check(value[index]))) throw invalidCursor();
  return value as T;
}
