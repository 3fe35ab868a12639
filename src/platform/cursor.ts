import { isCalendarDate } from '../domain/business-days.ts';
import { SealedBoxError, type SealingKey } from '../domain/sealed-box.ts';
import { ApiError } from './errors.ts';
import type { Scope } from './scope-types.ts';

// Opaque page cursors (docs/operations.md § Page cursors). A cursor holds the last result's
// position in a list, a short tuple such as a row's sequence, and most lists order by a sequence
// that every account's rows share: in clear, a cursor would tell a client how many rows the
// whole platform wrote between two of its own. So a cursor is the tuple sealed with AES-256-GCM
// under a key derived from the encryption key (ENCRYPTION_KEY), with the list and
// the caller's account and environment bound as associated data. Its text reveals nothing; it
// opens only for the list, account and environment it was written for, in every process that
// has the same key and after a restart; and after a key rotation it still opens while the key
// it was sealed with is configured among the previous keys. Anything else, a tampered cursor or
// another account's, is 400 INVALID_REQUEST. Each member of the opened tuple is still checked
// against the range of the column it is compared with, so that no cursor can carry to the
// database a value the column cannot hold.

// A list a cursor is written for, and whose caller it is: a cursor opens only there.
export type CursorList = { list: string; scope: Scope };

function invalidCursor(): ApiError {
  return new ApiError('INVALID_REQUEST', 'query.cursor is not a cursor this operation ' +
    'returned to this account and environment.');
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

// What a cursor's text may hold: a sealed box's version, base64url parts and dots.
const CURSOR_TEXT = /^[A-Za-z0-9_.-]+$/;

// Whether a value could be a cursor this module wrote (its characters and length), for a page
// that reads one from an address before a service opens it.
export function looksLikeCursor(value: string): boolean {
  return value.length >= 1 && value.length <= CURSOR_LENGTH_MAX && CURSOR_TEXT.test(value);
}
// Longer than any cursor this writes (their tuples are a few dozen bytes).
export const CURSOR_LENGTH_MAX = 200;

// Every tuple this writes fits one block, so every cursor has the same length.
const PADDING_BLOCK = 64;

const context = ({ list, scope }: CursorList) =>
  ['page cursor', list, scope.accountId, scope.environment].join('\u0000');

export function createPageCursors(sealing: SealingKey) {
  const key = sealing.derived('page cursors');
  return {
    encode(at: CursorList, position: readonly unknown[]): string {
      // Padded with spaces (which JSON ignores) to a whole block, so that the length of a
      // cursor does not tell how many digits its position has.
      const json = JSON.stringify(position);
      const padded = json.padEnd(Math.ceil(json.length / PADDING_BLOCK) * PADDING_BLOCK, ' ');
      return key.seal(Buffer.from(padded), context(at));
    },
    // The tuple of a cursor written by `encode` for the same list and caller, each member
    // checked by its own rule; 400 INVALID_REQUEST otherwise.
    decode<T extends unknown[]>(at: CursorList, cursor: string, members: Members<T>): T {
      if (cursor.length > CURSOR_LENGTH_MAX || !CURSOR_TEXT.test(cursor)) throw invalidCursor();
      let value: unknown;
      try {
        value = JSON.parse(key.open(cursor, context(at)).toString('utf8'));
      } catch (error) {
        if (error instanceof SealedBoxError || error instanceof SyntaxError) throw invalidCursor();
        throw error;
      }
      if (!Array.isArray(value) || value.length !== members.length) throw invalidCursor();
      const checks = members as readonly CursorMember<unknown>[];
      if (!checks.every((check, index) => check(value[index]))) throw invalidCursor();
      return value as T;
    },
  };
}

export type PageCursors = ReturnType<typeof createPageCursors>;

// The cursors of a list ordered by one bigint sequence column: the last row's sequence.
export function sequenceCursors(cursors: PageCursors, list: string) {
  const at = (scope: Scope): CursorList => ({ list, scope });
  const encode = (scope: Scope, sequence: number) => cursors.encode(at(scope), [sequence]);
  return {
    decode(scope: Scope, cursor: string | undefined): number | undefined {
      if (cursor === undefined) return undefined;
      return cursors.decode<[number]>(at(scope), cursor, [cursorInteger(0, BIGINT_COLUMN_MAX)])[0];
    },
    encode,
    // A page of rows read with one to spare, and the next page's cursor: null when none was
    // left over, so the last page says so without another read.
    pageOf<T extends { sequence: number }>(scope: Scope, rows: T[], limit: number) {
      const page = rows.slice(0, limit);
      const last = page.at(-1);
      const nextCursor = rows.length > limit && last ? encode(scope, last.sequence) : null;
      return { page, nextCursor };
    },
  };
}
