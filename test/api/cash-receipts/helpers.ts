import { expect } from 'vitest';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { seoulDate } from '../../../src/domain/business-days.ts';
import type { Platform } from '../../../src/platform/platform.ts';
import { pollUntil } from '../../helpers/poll.ts';
import { registerSupplier, request } from '../tax-invoices/helpers.ts';

// Requests and fixtures shared by the cash-receipt API tests: a merchant (an issuer without a
// certificate), a valid receipt body, and the calls that issue, cancel and read receipts.

type Injector = { server: { inject(options: InjectOptions): Promise<LightMyRequestResponse> } };
type WithAccounts = Injector & { issuers: { processUpload(id: string): Promise<unknown> } } &
  { platform: Pick<Platform, 'accounts'> };

export { request };

export type MerchantAccount = { accountId: string; key: string; liveKey: string;
  issuerId: string; supplierKey: string };

export async function createMerchantAccount(app: WithAccounts, name = 'Cash account'):
  Promise<MerchantAccount> {
  const account = await app.platform.accounts.createAccount({ name, plan: 'FREE' });
  const supplier = await registerSupplier(app, account.keys.test, { certificate: false });
  return { accountId: account.accountId, key: account.keys.test, liveKey: account.keys.live,
    issuerId: supplier.issuerId, supplierKey: supplier.supplierKey };
}

export function today(): string {
  return seoulDate(new Date());
}

export function receiptBody(overrides: Record<string, unknown> = {}) {
  return {
    tradeDate: today(),
    usage: 'INCOME_DEDUCTION',
    identityNumber: '010-1234-5678',
    taxation: 'TAXABLE',
    supplyCost: 10_000,
    tax: 1_000,
    serviceFee: 0,
    totalAmount: 11_000,
    itemName: '아메리카노 외 2건',
    ...overrides,
  };
}

let counter = 0;
export function referenceId(prefix = 'cr'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

export function issueReceipt(app: Injector, key: string, supplierKey: string, body: unknown,
  reference: string = referenceId()) {
  return app.server.inject(request(key, 'POST', '/v1/cashReceipts/issue', { body,
    headers: { 'supplier-key': supplierKey, 'service-client-reference-id': reference } }));
}

export function cancelReceipt(app: Injector, key: string, issuanceKey: string, body: unknown,
  reference: string = referenceId('cancel')) {
  return app.server.inject(request(key, 'POST', `/v1/cashReceipts/${issuanceKey}/cancel`,
    { body, headers: { 'service-client-reference-id': reference } }));
}

export type CashReceipt = { issuanceKey: string; kind: string; status: string;
  approvalNumber: string | null; canceledAmount: number | null; remainingAmount: number | null;
  failure: { code: string; message: string } | null; [field: string]: unknown };

export async function getReceipt(app: Injector, key: string, issuanceKey: string):
  Promise<CashReceipt> {
  const response = await app.server.inject(request(key, 'GET', `/v1/cashReceipts/${issuanceKey}`));
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as CashReceipt;
}

export function waitForStatus(app: Injector, key: string, issuanceKey: string,
  statuses: string[]): Promise<CashReceipt> {
  return pollUntil(() => getReceipt(app, key, issuanceKey),
    (receipt) => statuses.includes(receipt.status));
}

export async function accepted(response: LightMyRequestResponse): Promise<string> {
  expect(response.statusCode, response.body).toBe(202);
  return (response.json() as { issuanceKey: string }).issuanceKey;
}
