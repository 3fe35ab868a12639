import { unwrap, type EtaxClient } from './client.js';
import type { paths } from './schema.js';

// Lists and searches answer a page of items and `nextCursor`, null on the last page. Feeds
// (revenue/expense items, bank transactions) always answer a cursor, to be polled again later
// for what arrives after, and say with `hasMore: false` that nothing follows right now. `paginate`
// walks every page there is now as one sequence: `for await (const invoice of paginate(etax,
// '/v1/taxInvoices', { query: { status: ['ISSUED'] } })) …`.

type GetOperation<Path extends keyof paths> = paths[Path] extends { get: infer Operation }
  ? Operation : never;

// The paths whose GET takes a cursor.
export type PaginatedPath = {
  [Path in keyof paths]: GetOperation<Path> extends { parameters: { query?: infer Query } }
    ? ('cursor' extends keyof NonNullable<Query> ? Path : never)
    : never;
}[keyof paths];

type PageOf<Path extends PaginatedPath> = GetOperation<Path> extends {
  responses: { 200: { content: { 'application/json': infer Page } } };
} ? Page : never;

// The type of the page's one array: results, issuers or taxInvoices.
export type PageItem<Path extends PaginatedPath> = {
  [Key in keyof PageOf<Path>]: PageOf<Path>[Key] extends readonly (infer Item)[] ? Item : never;
}[keyof PageOf<Path>];

type ParametersOf<Path extends PaginatedPath> = GetOperation<Path> extends {
  parameters: infer Parameters;
} ? Parameters : never;

type ListInit<Path extends PaginatedPath> = {
  query?: Omit<NonNullable<ParametersOf<Path> extends { query?: infer Query } ? Query : never>,
    'cursor'>;
  path?: ParametersOf<Path> extends { path: infer PathParameters } ? PathParameters : never;
};

export async function* paginate<Path extends PaginatedPath>(client: EtaxClient, path: Path,
  init: ListInit<Path> = {}): AsyncGenerator<PageItem<Path>, void, undefined> {
  let cursor: string | undefined;
  do {
    const params = { query: { ...init.query, ...(cursor === undefined ? {} : { cursor }) },
      path: init.path };
    // The generic path defeats openapi-fetch's per-path overloads; the page type is restored
    // from the document's types below.
    const get = client.GET as (path: string, init: object) => Promise<{ data?: unknown;
      error?: unknown; response: Response }>;
    const page = await unwrap(get(path, { params })) as Record<string, unknown>;
    const items = Object.values(page).find(Array.isArray) as PageItem<Path>[] | undefined;
    for (const item of items ?? []) yield item;
    cursor = typeof page.nextCursor === 'string' && page.hasMore !== false
      ? page.nextCursor : undefined;
  } while (cursor !== undefined);
}
