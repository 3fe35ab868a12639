import { Type } from '@fastify/type-provider-typebox';

// The paging fields every list answers beside its items (docs/api-conventions.md § Lists):
// `nextCursor`, and `hasMore`, so a client stops on `hasMore: false` whatever the cursor.

export const HasMore = Type.Boolean({ description: 'True when another page follows: pass ' +
  '`nextCursor` as `cursor` to read it. Stop when false.' });

export const NextCursor = Type.Union([Type.String(), Type.Null()], {
  description: 'Pass as `cursor` for the next page; null on the last page.' });

// The bounds of `limit` on every list: 1 to 100.
export const PAGE_LIMIT_MAX = 100;

export const PageLimit = (defaultLimit: number, what: string) => Type.Integer({ minimum: 1,
  maximum: PAGE_LIMIT_MAX, default: defaultLimit, description: `Most ${what} on the page.` });

export const PageCursor = Type.Optional(Type.String({ minLength: 1, maxLength: 400,
  description: 'The `nextCursor` of the previous page, unchanged; omit for the first page.' }));

// A page whose cursor is null on its last page, with its `hasMore`.
export function withHasMore<T extends { nextCursor: string | null }>(page: T):
  T & { hasMore: boolean } {
  return { ...page, hasMore: page.nextCursor !== null };
}
