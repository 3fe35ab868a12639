// Live keys (docs/bank-transactions.md § The live bank gateway): they connect and sync through
// the operator's gateway, never the sandbox, and without BANK_ACCOUNT_GATEWAY_URL a sync is
// refused with 503 SERVICE_UNAVAILABLE.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealCredentials } from '../../../src/areas/connections/credentials.ts';
import { bankAccountSubjects } from '../../../src/areas/connections/service.ts';
import { createTestApp, type TestApp } from '../../helpers/app.ts';
import { request } from '../tax-invoices/helpers.ts';
import {
  BANK_PASSWORD,
  connectBankAccount,
  listBankAccounts,
  readAllTransactions,
  syncAndWait,
} from './helpers.ts';

let gateway: Server;
const calls: Array<{ url: string; body: Record<string, unknown> }> = [];
const LINE = { bookedDate: '2026-11-20', bookedTime: null, direction: 'DEPOSIT',
  amount: 330_000, balanceAfter: 5_330_000, counterpartyName: '주식회사 라이브', memo: '입금',
  branch: null };

let app: TestApp;
let withoutGateway: TestApp;

beforeAll(async () => {
  gateway = createServer((incoming, response) => {
    let text = '';
    incoming.on('data', (chunk) => { text += String(chunk); });
    incoming.on('end', () => {
      calls.push({ url: incoming.url ?? '', body: JSON.parse(text) });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(incoming.url === '/login'
        ? { result: 'CONNECTED', holderName: '주식회사 라이브' }
        : { result: 'LISTED', holderName: '주식회사 라이브', balance: 5_330_000,
          lines: [{ ...LINE, sequence: 1 }, { ...LINE, sequence: 2 }] }));
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
  app = await createTestApp({ jobs: true, env: { BANK_ACCOUNT_GATEWAY_URL: url } });
  withoutGateway = await createTestApp();
});

afterAll(async () => {
  await app?.close();
  await withoutGateway?.close();
  gateway?.closeAllConnections();
  await new Promise((resolve) => gateway?.close(resolve));
});

describe('live keys', () => {
  it('connect and sync through the gateway', async () => {
    const { keys } = await app.createAccount({ plan: 'STANDARD' });
    const account = await connectBankAccount(app, keys.live, '004', '110999888777');
    expect(account).toMatchObject({ holderName: '주식회사 라이브', balance: null });
    const sync = await syncAndWait(app, keys.live, account.bankAccountId);
    expect(sync.counts).toEqual({ listed: 2, created: 2, updated: 0, unchanged: 0 });
    const transactions = calls.filter((call) => call.url === '/transactions');
    expect(transactions).toHaveLength(1);
    expect(transactions[0]!.body).toMatchObject({ credentials: { bankCode: '004',
      accountNumber: '110999888777', password: BANK_PASSWORD }, to: sync.to, from: sync.from });
    const { items } = await readAllTransactions(app, keys.live, account.bankAccountId);
    expect(items.map((item) => [item.bookedAt, item.amount])).toEqual([
      ['2026-11-20', 330_000], ['2026-11-20', 330_000]]);
    expect((await listBankAccounts(app, keys.live))[0]!.balance).toBe(5_330_000);
    // The test environment knows nothing of it.
    expect(await listBankAccounts(app, keys.test)).toEqual([]);
  });

  it('are refused with 503 without a gateway', async () => {
    const { accountId, keys } = await withoutGateway.createAccount({ plan: 'STANDARD' });
    // A live connection made while a gateway was configured.
    const { sealing } = withoutGateway;
    const sealed = sealCredentials(sealing, 'con_live_test', { kind: 'BANK_ACCOUNT',
      bank: { bankCode: '004', accountNumber: '110999888777', userId: 'user', password: 'pw' } });
    const { subject } = bankAccountSubjects(sealing, '004', '110999888777');
    await withoutGateway.platform.database.db.execute(sql`insert into connections (id,
      account_id, environment, kind, subject, masked_account_number, method, display_name, state,
      sealed_credentials) values ('con_live_test', ${accountId}, 'live', 'BANK_ACCOUNT',
      ${subject}, '********8777', 'PASSWORD', '주식회사 라이브', 'CONNECTED', ${sealed})`);
    const [account] = await listBankAccounts(withoutGateway, keys.live);
    const response = await withoutGateway.server.inject(request(keys.live, 'POST',
      `/v1/bankAccounts/${account!.bankAccountId}:sync`));
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
