import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { request } from '../tax-invoices/helpers.ts';

// Connecting the tax portal on the hosted page and reading the books, as a client and a
// business owner would.

type Injector = Pick<TestApp, 'server'>;

export const PORTAL_PASSWORD = 'Portal-Secret-7d1e';
export const PORTAL_USER_ID = 'hometax-owner-51';

export async function connectionLink(app: Injector, key: string, kind = 'HOMETAX') {
  const response = await app.server.inject(request(key, 'GET', `/v1/connections/url?kind=${kind}`));
  expect(response.statusCode, response.body).toBe(200);
  return new URL((response.json() as { url: string }).url).pathname;
}

export function postForm(app: Injector, path: string, fields: Record<string, string>) {
  return app.server.inject({ method: 'POST', url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString() });
}

// Makes `number` a business the key's account issues for (an active issuer of the key's
// environment), which a test key needs before it connects that business's tax portal.
export async function issueFor(app: Injector, key: string, number: string) {
  const response = await app.server.inject(request(key, 'POST', '/v1/issuers', { body: {
    identificationNumber: number, organizationName: '주식회사 연결', representativeName: '홍길동' } }));
  if (response.statusCode === 409) {
    expect(response.json()).toMatchObject({ code: 'ISSUER_ALREADY_REGISTERED' });
  } else {
    expect(response.statusCode, response.body).toBe(201);
  }
}

// Connects the HOMETAX portal of `number` for `key` through the hosted page, after making it a
// business the account issues for.
export async function connectHometax(app: Injector, key: string, number: string,
  password = PORTAL_PASSWORD) {
  await issueFor(app, key, number);
  const path = await connectionLink(app, key);
  const response = await postForm(app, path, { businessRegistrationNumber: number,
    userId: PORTAL_USER_ID, password });
  expect(response.statusCode, response.body).toBe(200);
  const list = await app.server.inject(request(key, 'GET', '/v1/connections?kind=HOMETAX'));
  type Listed = { items: Array<{ id: string; businessRegistrationNumber: string }> };
  const { items } = list.json() as Listed;
  return items.find((item) => item.businessRegistrationNumber === number)!;
}

type FeedItem = { direction: string; source: string; approvalNumber: string;
  status: string; changeSequence: number; amendment: unknown; supplyCost: number;
  [field: string]: unknown };
type FeedPage = { items: FeedItem[]; nextCursor: string; hasMore: boolean };

export async function readFeed(app: Injector, key: string, query: Record<string, string> = {}) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/revenueExpenses/taxInvoices?${new URLSearchParams(query)}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as FeedPage;
}

// Every item after `cursor`, page by page, and the cursor after the last.
export async function readAll(app: Injector, key: string, cursor?: string, limit = 7) {
  const items: FeedItem[] = [];
  let next = cursor;
  for (;;) {
    const page = await readFeed(app, key, { limit: String(limit),
      ...(next === undefined ? {} : { cursor: next }) });
    items.push(...page.items);
    next = page.nextCursor;
    if (!page.hasMore) return { items, cursor: next };
  }
}

type CollectionView = { collectionId: string; state: string;
  counts: { collected: number; inserted: number; updated: number; unchanged: number };
  failure: { code: string; message: string } | null };

export async function collect(app: Injector, key: string, from: string, to: string) {
  const response = await app.server.inject(request(key, 'POST',
    '/v1/revenueExpenses:collect', { body: { from, to } }));
  expect(response.statusCode, response.body).toBe(202);
  return (response.json() as { collectionId: string }).collectionId;
}

export async function getCollection(app: Injector, key: string, id: string) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/revenueExpenses/collections/${id}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as CollectionView;
}

export async function collectAndWait(app: Injector, key: string, from: string, to: string) {
  const id = await collect(app, key, from, to);
  const done = await pollUntil(() => getCollection(app, key, id),
    (seen) => seen.state === 'SUCCEEDED' || seen.state === 'FAILED');
  expect(done.state, JSON.stringify(done)).toBe('SUCCEEDED');
  return done;
}

// `YYYY-MM` of the month `back` months before the current one, in Korea.
export function monthsAgo(back: number): string {
  const now = new Date(new Date().toLocaleString('en-US', { timeZone: 'Asia/Seoul' }));
  now.setDate(1);
  now.setMonth(now.getMonth() - back);
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}`;
}
