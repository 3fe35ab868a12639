import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from
  '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import {
  invoiceBody,
  issueTransmitted,
  registerSupplier,
  today,
  type Supplier,
} from '../api/tax-invoices/helpers.ts';
import { basicAuth } from '../helpers/app.ts';
import { pollUntil } from '../helpers/poll.ts';

// The MCP endpoint /mcp, driven by the MCP SDK's own client over Streamable HTTP against a
// listening server: the tools and their schemas, a lookup, the preview → confirm → issue flow
// to TRANSMITTED, every refusal (no token, a reused one, a changed body, a live key), a retried
// confirmation acting once, and etax's errors as tool errors; then the previews that are the
// API's validations (an amendment's documents, a cancellation's error), a charged lookup that
// needs a token, and a certificate file sent as base64.

let app: TestApp;
let url: URL;
let key: string;
let liveKey: string;
let accountId: string;
let supplier: Supplier;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
  const address = await app.server.listen({ port: 0, host: '127.0.0.1' });
  url = new URL('/mcp', address);
  const account = await app.createFundedAccount(10_000);
  ({ accountId } = account);
  key = account.keys.test;
  liveKey = account.keys.live;
  supplier = await registerSupplier(app, key);
});
afterAll(async () => {
  await app?.close();
});

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'etax-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url,
    { requestInit: { headers: { authorization: basicAuth(apiKey) } } }));
  return client;
}

type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text?: string }> };

function parsed(result: unknown): Record<string, unknown> {
  const answer = result as ToolAnswer;
  const text = answer.content.find((item) => item.type === 'text')?.text;
  expect(text, JSON.stringify(result)).toBeDefined();
  return JSON.parse(text!) as Record<string, unknown>;
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args });

const issueArgs = (overrides: Record<string, unknown> = {}) =>
  ({ supplierKey: supplier.supplierKey, body: invoiceBody(overrides) });

const balance = () => app.platform.points.getBalance({ accountId, environment: 'test' });

describe('/mcp over Streamable HTTP', () => {
  it('answers 401 without a key, as /v1 does', async () => {
    const response = await fetch(url, { method: 'POST', headers: { 'content-type':
      'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(response.status).toBe(401);
  });

  it('lists the tools with their schemas and hints', async () => {
    const client = await connect(key);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ['list_issuers', 'preview_issue_tax_invoice', 'issue_tax_invoice',
      'get_tax_invoice', 'list_tax_invoices', 'get_tax_invoice_pdf_link',
      'preview_cancel_tax_invoice', 'cancel_tax_invoice', 'preview_issue_cash_receipt',
      'issue_cash_receipt', 'cancel_cash_receipt', 'preview_request_document',
      'request_document', 'download_document', 'list_bank_transactions',
      'list_revenue_expense_tax_invoices', 'get_points_balance', 'list_points_ledger',
      'list_webhook_deliveries', 'get_issuer_certificate', 'get_business_registration_status',
      'lookup_bank_account_holders', 'amend_tax_invoice_termination',
      'cancel_reverse_issuance_request']) {
      expect(byName.has(name), name).toBe(true);
    }
    const issue = byName.get('issue_tax_invoice')!;
    expect(issue.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false,
      idempotentHint: true });
    expect(issue.inputSchema.required).toEqual(expect.arrayContaining(['supplierKey', 'body']));
    const body = (issue.inputSchema.properties as Record<string, { properties?: object }>).body;
    expect(Object.keys(body!.properties ?? {})).toEqual(expect.arrayContaining(['date',
      'supplier', 'supplied', 'items']));
    expect(byName.get('cancel_tax_invoice')!.annotations).toMatchObject({
      destructiveHint: true });
    expect(byName.get('preview_issue_tax_invoice')!.annotations).toMatchObject({
      readOnlyHint: true });
    expect(byName.get('list_issuers')!.annotations).toMatchObject({ readOnlyHint: true });
    await client.close();
  });

  it('looks an issuer up', async () => {
    const client = await connect(key);
    const answer = parsed(await call(client, 'get_issuer', { issuerId: supplier.issuerId }));
    expect(answer).toMatchObject({ issuerId: supplier.issuerId,
      supplierKey: supplier.supplierKey });
    await client.close();
  });

  it('previews, then issues on confirmation, once, to TRANSMITTED', async () => {
    const client = await connect(key);
    const before = await balance();
    const preview = parsed(await call(client, 'preview_issue_tax_invoice', issueArgs()));
    expect(preview).toMatchObject({ action: 'issue_tax_invoice', wouldDo: { valid: true,
      price: { points: 100 }, documents: [{ totals: { total: 220_000 } }] } });
    expect(await balance()).toEqual(before);
    const token = preview.confirmationToken as string;
    // Two confirmations at once, as a client retrying would send: one acts, one is refused.
    const answers = await Promise.all([1, 2].map(() => call(client, 'issue_tax_invoice',
      { ...issueArgs(), confirmationToken: token })));
    const acted = answers.filter((answer) => !(answer as ToolAnswer).isError);
    const refused = answers.filter((answer) => (answer as ToolAnswer).isError);
    expect(acted).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(parsed(refused[0])).toMatchObject({ refused: 'CONFIRMATION_REUSED' });
    const issued = parsed(acted[0]) as { referenceId: string; result: { issuanceKey: string } };
    expect(issued.referenceId).toMatch(/^mcp-/);
    const transmitted = await pollUntil(async () => parsed(await call(client, 'get_tax_invoice',
      { issuanceKey: issued.result.issuanceKey })), (invoice) =>
      ['TRANSMITTED', 'FAILED'].includes(invoice.status as string));
    expect(transmitted.status).toBe('TRANSMITTED');
    const list = parsed(await call(client, 'list_tax_invoices', { limit: 100 })) as {
      taxInvoices: unknown[] };
    expect(list.taxInvoices).toHaveLength(1);
    expect((await balance()).balance).toBe(before.balance - 100);
    // The reference id is what the status tool reads.
    expect(parsed(await call(client, 'get_tax_invoice_status',
      { clientReferenceId: issued.referenceId }))).toMatchObject({
      issuanceKey: issued.result.issuanceKey });
    // Used once: the same token again is refused, and nothing more is issued.
    expect(parsed(await call(client, 'issue_tax_invoice', { ...issueArgs(),
      confirmationToken: token }))).toMatchObject({ refused: 'CONFIRMATION_REUSED' });
    await client.close();
  });

  it('refuses an action without a token, with a changed body, or a foreign token', async () => {
    const client = await connect(key);
    const before = await balance();
    const missing = await call(client, 'issue_tax_invoice', issueArgs());
    expect((missing as ToolAnswer).isError).toBe(true);
    expect(parsed(missing)).toMatchObject({ refused: 'CONFIRMATION_REQUIRED' });
    const preview = parsed(await call(client, 'preview_issue_tax_invoice', issueArgs()));
    const changed = await call(client, 'issue_tax_invoice', { ...issueArgs({
      description: '다른 내용' }), confirmationToken: preview.confirmationToken });
    expect(parsed(changed)).toMatchObject({ refused: 'CONFIRMATION_MISMATCH' });
    const forged = await call(client, 'issue_tax_invoice', { ...issueArgs(),
      confirmationToken: 'v1.AAAA.BBBB.CCCC' });
    expect(parsed(forged)).toMatchObject({ refused: 'CONFIRMATION_INVALID' });
    // Another key's token does not work for this key.
    const other = await app.createFundedAccount(1_000);
    const otherClient = await connect(other.keys.test);
    expect(parsed(await call(otherClient, 'issue_tax_invoice', { ...issueArgs(),
      confirmationToken: preview.confirmationToken }))).toMatchObject({
      refused: 'CONFIRMATION_MISMATCH' });
    await otherClient.close();
    expect(await balance()).toEqual(before);
    expect((parsed(await call(client, 'list_tax_invoices', { limit: 100 })) as {
      taxInvoices: unknown[] }).taxInvoices).toHaveLength(1);
    await client.close();
  });

  it('refuses a live key unless MCP_ALLOW_LIVE is set, and says so', async () => {
    const client = await connect(liveKey);
    const answer = await call(client, 'get_points_balance', {});
    expect((answer as ToolAnswer).isError).toBe(true);
    const refusal = parsed(answer);
    expect(refusal).toMatchObject({ refused: 'LIVE_KEY_REFUSED' });
    expect(refusal.message).toMatch(/MCP_ALLOW_LIVE=true/);
    await client.close();
  });

  it('answers etax errors as tool errors with the code and message', async () => {
    const client = await connect(key);
    const answer = await call(client, 'preview_issue_tax_invoice',
      { supplierKey: 'sup_unknown', body: invoiceBody() });
    expect((answer as ToolAnswer).isError).toBe(true);
    expect(parsed(answer)).toMatchObject({ error: { status: 404, code: 'NOT_FOUND',
      message: expect.any(String) } });
    const invalid = parsed(await call(client, 'preview_issue_tax_invoice',
      issueArgs({ items: [{ date: invoiceBody().date, name: 'x', supplyCost: 1_000,
        tax: 1 }] })));
    expect(invalid).toMatchObject({ error: { status: 400, code: expect.any(String) } });
    await client.close();
  });

  it('previews an amendment with the documents it would make, and its errors', async () => {
    const client = await connect(key);
    const original = await issueTransmitted(app, key, supplier.supplierKey);
    const before = await balance();
    const preview = parsed(await call(client, 'preview_amend_tax_invoice_termination',
      { issuanceKey: original.issuanceKey, supplierKey: supplier.supplierKey,
        body: { date: today() } }));
    expect(preview).toMatchObject({ action: 'amend_tax_invoice_termination', wouldDo: {
      valid: true, price: { operation: 'taxInvoices.issue', points: 100 },
      documents: [{ totals: { total: -220_000 }, amendment: { reason: 'TERMINATION',
        originalIssuanceKey: original.issuanceKey } }] } });
    const late = await call(client, 'preview_amend_tax_invoice_termination',
      { issuanceKey: original.issuanceKey, supplierKey: supplier.supplierKey,
        body: { date: '2999-01-01' } });
    expect(parsed(late)).toMatchObject({ error: { status: 400, code: 'INVALID_REQUEST' } });
    // A cancellation of more than the receipt: the validation's error, not the receipt as it is.
    const receipt = await app.server.inject({ method: 'POST', url: '/v1/cashReceipts/issue',
      headers: { authorization: basicAuth(key), 'supplier-key': supplier.supplierKey,
        'service-client-reference-id': `mcp-test-${Date.now()}` },
      payload: { tradeDate: today(), usage: 'INCOME_DEDUCTION', identityNumber: '010-1234-5678',
        taxation: 'TAXABLE', supplyCost: 10_000, tax: 1_000, serviceFee: 0,
        totalAmount: 11_000, itemName: '커피' } });
    expect(receipt.statusCode, receipt.body).toBe(202);
    const cancel = parsed(await call(client, 'preview_cancel_cash_receipt', {
      issuanceKey: (receipt.json() as { issuanceKey: string }).issuanceKey,
      body: { reason: 'OTHER', supplyCost: 20_000, tax: 2_000, serviceFee: 0,
        totalAmount: 22_000 } })) as { error: { status: number; code: string } };
    expect(cancel.error.status).toBe(409);
    expect(['CASH_RECEIPT_NOT_CANCELABLE', 'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING'])
      .toContain(cancel.error.code);
    expect((await balance()).balance).toBe(before.balance - 10);
    await client.close();
  });

  it('guards the charged single status lookup: a token first, then the answer', async () => {
    const client = await connect(key);
    const args = { businessRegistrationNumber: '2208162517' };
    expect(parsed(await call(client, 'get_business_registration_status', args)))
      .toMatchObject({ refused: 'CONFIRMATION_REQUIRED' });
    const preview = parsed(await call(client, 'preview_get_business_registration_status',
      args));
    expect(preview).toMatchObject({ wouldDo: { price: {
      operation: 'businesses.registrationStatus.inquire', pointsMax: 10 } } });
    const answer = parsed(await call(client, 'get_business_registration_status',
      { ...args, confirmationToken: preview.confirmationToken }));
    expect(answer).toMatchObject({ action: 'get_business_registration_status',
      result: { businessRegistrationNumber: '2208162517' } });
    await client.close();
  });

  it('verifies a certificate file given in base64, after its preview', async () => {
    const client = await connect(key);
    const { tools } = await client.listTools();
    const tool = tools.find((candidate) =>
      candidate.name === 'verify_business_registration_certificate');
    expect(Object.keys((tool!.inputSchema.properties as Record<string, unknown>))).toContain(
      'file');
    const pdf = '%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n' +
      '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n' +
      '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R ' +
      '/Resources << /Font << /F1 5 0 R >> >> >> endobj\n' +
      '4 0 obj << /Length 35 >>\nstream\nBT /F1 12 Tf 20 100 Td (Hello) Tj ET\nendstream\n' +
      'endobj\n5 0 obj << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> endobj\n' +
      'trailer << /Root 1 0 R >>\n%%EOF\n';
    const args = { file: { fileName: 'certificate.pdf',
      contentBase64: Buffer.from(pdf, 'latin1').toString('base64') } };
    const preview = parsed(await call(client, 'preview_verify_business_registration_certificate',
      args));
    expect(preview).toMatchObject({ wouldDo: { file: { fileName: 'certificate.pdf',
      bytes: pdf.length }, price: { operation: 'businesses.certificates.verify' } } });
    const verified = parsed(await call(client, 'verify_business_registration_certificate',
      { ...args, confirmationToken: preview.confirmationToken }));
    expect(verified).toMatchObject({ result: { verification: { result: 'UNREADABLE' } } });
    await client.close();
  });
});
