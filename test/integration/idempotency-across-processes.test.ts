// Two requests with one Service-Client-Reference-Id that reach two different server instances
// at the same moment have one effect (docs/idempotency.md): the claim is a unique-index insert
// in the transaction of the work, so the second instance waits for the first one's commit and
// then replays its response, or answers 409 IDEMPOTENCY_CONFLICT for other content.
// Method: no operation of `etax serve` takes the header yet (cash receipts and document
// issuance will), so two app instances, each with its own connection pool, rate limiter and
// key cache, share one PostgreSQL database in this process and mount the example document
// route (test/helpers/example-document-route.ts). Its work records a webhook event, a row
// with staged delivery jobs, and holds its transaction open for a moment, so the two requests
// always overlap. PostgreSQL only: two instances cannot open one embedded database.
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { basicAuth } from '../helpers/app.ts';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../helpers/database.ts';
import {
  EXAMPLE_DOCUMENT_URL,
  exampleDocumentRoute,
  type DocumentWork,
} from '../helpers/example-document-route.ts';

const ROUNDS = 10;
// Long enough that the other instance's request arrives while this transaction is open.
const WORK_HOLD_SECONDS = 0.2;

let database: TestDatabase | null = null;
let apps: App[] = [];
let key = '';
let accountId = '';

function documentWork(app: () => App): DocumentWork {
  return async (tx, authenticated) => {
    const scope = { accountId: authenticated.accountId, environment: authenticated.environment };
    await app().webhooks.recordEvent(tx, scope, {
      type: 'TAX_INVOICE_ISSUANCE_SUCCESS',
      data: { issuanceKey: 'iss_doc', taxInvoiceUrl: 'https://example.com/invoices/iss_doc' },
    });
    await tx.execute(sql`select pg_sleep(${WORK_HOLD_SECONDS})`);
    const result = await tx.execute<{ count: number }>(sql`
      select count(*)::int as count from webhook_events where account_id = ${scope.accountId}`);
    return result.rows[0]!.count;
  };
}

beforeAll(async () => {
  if (!usingPostgres) return;
  database = await createTestDatabase();
  const config = loadConfig({
    LOG_LEVEL: 'silent', REDIS_URL: undefined, WORKERS_ENABLED: 'false', ...database.env,
  });
  for (let index = 0; index < 2; index += 1) {
    const app: App = await createApp(config, {
      extraModules: () => [{ name: 'example', routes:
        exampleDocumentRoute(() => app.platform, documentWork(() => app)) }],
    });
    await app.start();
    apps.push(app);
  }
  const account = await apps[0]!.platform.accounts.createAccount({ name: 'Docs', plan: 'FREE' });
  key = account.keys.test;
  accountId = account.accountId;
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  apps = [];
  await database?.drop();
});

function issue(app: App, referenceId: string, kind = 'vat') {
  return app.server.inject({
    method: 'POST', url: EXAMPLE_DOCUMENT_URL,
    headers: { authorization: basicAuth(key), 'service-client-reference-id': referenceId },
    payload: { kind },
  });
}

async function eventCount(): Promise<number> {
  const result = await apps[0]!.platform.database.pool.query(
    'select count(*)::int as count from webhook_events where account_id = $1', [accountId]);
  return result.rows[0].count;
}

describe.skipIf(!usingPostgres)('one reference id sent to two instances at once', () => {
  it('does the work once and gives both the same response, round after round', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = await eventCount();
      const [first, second] = await Promise.all([
        issue(apps[0]!, `same-${round}`), issue(apps[1]!, `same-${round}`),
      ]);
      expect(first.statusCode, first.body).toBe(200);
      expect(second.statusCode, second.body).toBe(200);
      expect(second.json()).toEqual(first.json());
      expect(await eventCount()).toBe(before + 1);
    }
  });

  it('does the work once and answers the other content 409 IDEMPOTENCY_CONFLICT', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = await eventCount();
      const responses = await Promise.all([
        issue(apps[0]!, `conflict-${round}`, 'vat'), issue(apps[1]!, `conflict-${round}`, 'income'),
      ]);
      const statuses = responses.map((response) => response.statusCode).sort();
      expect(statuses).toEqual([200, 409]);
      const refused = responses.find((response) => response.statusCode === 409)!;
      expect(refused.json().code).toBe('IDEMPOTENCY_CONFLICT');
      expect(await eventCount()).toBe(before + 1);
    }
  });
});
