import { desc, eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { DestinationStream } from 'pino';
import { expect } from 'vitest';
import { createApp, type App } from '../../../src/app.ts';
import { findStatusChanges } from '../../../src/areas/tax-invoices/store.ts';
import { loadConfig } from '../../../src/config.ts';
import { mailOutbox } from '../../../src/platform/mail/tables.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.ts';
import { invoiceBody, postWithSupplier, request } from './helpers.ts';

// Reverse issuance tests: an app whose clock a test can move (link expiry, issue deadlines),
// with its jobs running, and the calls and readings the tests share.

const PUBLIC_BASE_URL = 'https://etax.example.com';
export const APPROVAL_URL_PATTERN =
  /^https:\/\/etax\.example\.com\/taxInvoices\/issueRequests\/approval\/[\w-]{43}$/;

export type ReverseTestApp = App & {
  database: TestDatabase;
  // Milliseconds the app's clock runs ahead of the real one.
  clock: { offsetMs: number };
  close(): Promise<void>;
};

export async function createReverseTestApp(
  env: Record<string, string> = {},
  logDestination?: DestinationStream,
): Promise<ReverseTestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: undefined, ...database.env,
    PUBLIC_BASE_URL, TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0', ...env });
  const clock = { offsetMs: 0 };
  const app = await createApp(config, { outside: { logDestination,
    now: () => new Date(Date.now() + clock.offsetMs) } });
  await app.start();
  await app.server.ready();
  return {
    ...app,
    database,
    clock,
    async close() {
      await app.close();
      await database.drop();
    },
  };
}

type Injector = { server: { inject(options: InjectOptions): Promise<LightMyRequestResponse> } };

export function requestReverse(
  app: Injector,
  key: string,
  supplierKey: string,
  body: unknown = invoiceBody(),
  referenceId?: string,
) {
  return postWithSupplier(app, key, '/v1/taxInvoices/issueRequest',
    { supplierKey, body, referenceId });
}

// A new REQUESTED request; returns its issuance key.
export async function newRequest(app: Injector, key: string, supplierKey: string,
  body: unknown = invoiceBody()): Promise<string> {
  const response = await requestReverse(app, key, supplierKey, body);
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}

export function grant(app: Injector, key: string, issuanceKey: string) {
  return app.server.inject(request(key, 'GET',
    `/v1/taxInvoices/${issuanceKey}/issueRequest/grant`));
}

// The path of a fresh grant link of a request.
export async function grantPath(app: Injector, key: string, issuanceKey: string) {
  const response = await grant(app, key, issuanceKey);
  expect(response.statusCode, response.body).toBe(200);
  const { url } = response.json() as { url: string };
  expect(url).toMatch(APPROVAL_URL_PATTERN);
  return new URL(url).pathname;
}

export function decide(
  app: Injector,
  key: string,
  issuanceKey: string,
  decision: 'approve' | 'refuse',
  options: { supplierKey: string; body?: unknown },
) {
  return app.server.inject(request(key, 'POST',
    `/v1/taxInvoices/${issuanceKey}/issueRequest/${decision}`,
    { headers: { 'supplier-key': options.supplierKey }, body: options.body }));
}

export function cancel(app: Injector, key: string, issuanceKey: string,
  options: { body?: unknown } = {}) {
  return app.server.inject(request(key, 'PUT',
    `/v1/taxInvoices/${issuanceKey}/issueRequest/cancel`, options));
}

// Posts the page's form, as a browser does.
export function postForm(app: Injector, path: string, fields: Record<string, string>) {
  return app.server.inject({ method: 'POST', url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString() });
}

// The approval mails of the outbox that name this request, newest first.
async function mailsAbout(app: App, issuanceKey: string) {
  const rows = await app.platform.database.db.select().from(mailOutbox)
    .where(eq(mailOutbox.kind, 'TAX_INVOICE_APPROVAL_REQUEST'))
    .orderBy(desc(mailOutbox.sequence)).limit(500);
  return rows.filter((row) => row.textBody.includes(issuanceKey));
}

export async function mailAbout(app: App, issuanceKey: string) {
  const mails = await mailsAbout(app, issuanceKey);
  expect(mails).toHaveLength(1);
  return mails[0]!;
}

export function linkIn(text: string): string {
  const match = /https:\/\/etax\.example\.com\/taxInvoices\/issueRequests\/approval\/[\w-]{43}/
    .exec(text);
  expect(match, text).not.toBeNull();
  return match![0];
}

export async function actorsOf(app: App, issuanceKey: string) {
  const changes = await findStatusChanges(app.platform.database.db, issuanceKey);
  return changes.map((change) => `${change.toStatus}:${change.actor}`);
}

export async function mailCount(app: App) {
  const rows = await app.platform.database.db.select({ id: mailOutbox.id }).from(mailOutbox)
    .where(eq(mailOutbox.kind, 'TAX_INVOICE_APPROVAL_REQUEST')).limit(10_000);
  return rows.length;
}
