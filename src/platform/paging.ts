import { Type } from '@fastify/type-provider-typebox';
import { CURSOR_LENGTH_MAX } from './cursor.ts';

// The paging fields every list answers beside its items (docs/api-conventions.md § Lists):
// `nextCursor`, and `hasMore`, so a client stops on `hasMore: false` whatever the cursor.

export const HasMore = Type.Boolean({ description: 'True when another page follows: pass ' +
  '`nextCursor` as `cursor` to read it. Stop when false.' });

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` for the next page; null on the last page.' });

// The bounds of `limit` on every list: 1 to 100.
const PAGE_LIMIT_MAX = 100;

const PageLimit = (defaultLimit: number, what: string) => Type.Integer({ minimum: 1,
  maximum: PAGE_LIMIT_MAX, default: defaultLimit, description: `Most ${what} on the page.` });

// No cursor is longer than CURSOR_LENGTH_MAX, so a longer one is refused before it is opened.
const PageCursor = Type.Optional(Type.String({ minLength: 1, maxLength: CURSOR_LENGTH_MAX,
  description: 'The `nextCursor` of the previous page, unchanged; omit for the first page.' }));

// The query fields of every list (docs/api-conventions.md § Lists): `limit`, at most `what` on
// a page (1 to 100, `limitDefault` when left out), and `cursor`, the previous page's
// `nextCursor`. A list spreads them among its own filters.
export function pageQueryFields(what: string, limitDefault = 20) {
  return { limit: PageLimit(limitDefault, what), cursor: PageCursor };
}

// A page whose cursor is null on its last page, with its `hasMore`.
export function withHasMore<T extends { nextCursor: string | null }>(page: T):
  T & { hasMore: boolean } {
  return { ...page, hasMore: page.nextCursor !== null };
}
