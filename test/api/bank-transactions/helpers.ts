import { expect } from 'vitest';
import type { TestApp } from '../../helpers/app.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { connectionLink, postForm } from '../revenue-expenses/helpers.ts';
import { request } from '../tax-invoices/helpers.ts';

// Connecting bank accounts on the hosted page, syncing them and reading their transactions, as
// a client and a business owner would.

type Injector = Pick<TestApp, 'server'>;

export const BANK_PASSWORD = 'Bank-Secret-4c9a';
export const BANK_USER_ID = 'bank-owner-27';

type BankAccountView = { bankAccountId: string; connectionId: string; bankCode: string;
  bankName: string | null; accountNumber: string; holderName: string | null; currency: string;
  state: string; lastSyncedAt: string | null; balance: number | null };

export type TransactionView = { transactionId: string; bookedDate: string; bookedAt: string;
  direction: 'DEPOSIT' | 'WITHDRAWAL'; amount: number; balanceAfter: number | null;
  counterpartyName: string | null; memo: string | null; branch: string | null;
  changedAt: string; matchedTaxInvoices: Array<{ source: string; issuanceKey: string | null;
    approvalNumber: string | null; totalAmount: number; writeDate: string }> };

type TransactionPage = { items: TransactionView[]; nextCursor: string; hasMore: boolean };

type SyncView = { syncId: string; bankAccountId: string; trigger: string; state: string;
  from: string | null; to: string | null;
  counts: { listed: number; created: number; updated: number; unchanged: number };
  failure: { code: string; message: string } | null };

export async function listBankAccounts(app: Injector, key: string) {
  const response = await app.server.inject(request(key, 'GET', '/v1/bankAccounts'));
  expect(response.statusCode, response.body).toBe(200);
  return (response.json() as { items: BankAccountView[] }).items;
}

// Connects the bank account on the hosted page and returns it as the API lists it.
export async function connectBankAccount(app: Injector, key: string, bankCode: string,
  accountNumber: string, password = BANK_PASSWORD) {
  const path = await connectionLink(app, key, 'BANK_ACCOUNT');
  const response = await postForm(app, path, { bankCode, accountNumber, userId: BANK_USER_ID,
    password });
  expect(response.statusCode, response.body).toBe(200);
  const accounts = await listBankAccounts(app, key);
  const found = accounts.find((account) => account.bankCode === bankCode &&
    account.accountNumber.endsWith(accountNumber.slice(-4)));
  expect(found).toBeDefined();
  return found!;
}

export async function requestSync(app: Injector, key: string, bankAccountId: string) {
  const response = await app.server.inject(request(key, 'POST',
    `/v1/bankAccounts/${bankAccountId}:sync`));
  expect(response.statusCode, response.body).toBe(202);
  return (response.json() as { syncId: string }).syncId;
}

export async function getSync(app: Injector, key: string, bankAccountId: string, id: string) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/bankAccounts/${bankAccountId}/syncs/${id}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as SyncView;
}

export async function waitForSync(app: Injector, key: string, bankAccountId: string,
  id: string) {
  return pollUntil(() => getSync(app, key, bankAccountId, id),
    (seen) => seen.state === 'SUCCEEDED' || seen.state === 'FAILED');
}

export async function syncAndWait(app: Injector, key: string, bankAccountId: string) {
  const done = await waitForSync(app, key, bankAccountId,
    await requestSync(app, key, bankAccountId));
  expect(done.state, JSON.stringify(done)).toBe('SUCCEEDED');
  return done;
}

export async function readTransactions(app: Injector, key: string, bankAccountId: string,
  query: Record<string, string> = {}) {
  const response = await app.server.inject(request(key, 'GET',
    `/v1/bankAccounts/${bankAccountId}/transactions?${new URLSearchParams(query)}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as TransactionPage;
}

// Every transaction, page by page.
export async function readAllTransactions(app: Injector, key: string, bankAccountId: string,
  query: Record<string, string> = {}) {
  const items: TransactionView[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await readTransactions(app, key, bankAccountId, { limit: '1000', ...query,
      ...(cursor === undefined ? {} : { cursor }) });
    items.push(...page.items);
    cursor = page.nextCursor;
    if (!page.hasMore) return { items, cursor };
  }
}
