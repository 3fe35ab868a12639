import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { cliEnv } from '../helpers/cli.ts';
import { pollUntil } from '../helpers/poll.ts';
import { invoiceBody, registerSupplier, type Supplier } from '../api/tax-invoices/helpers.ts';

// `etax mcp` over stdio, launched from the configuration snippet of docs/mcp.md exactly as a
// desktop agent would launch it (its command, arguments and variable names as written; the
// variables get this test's key and server), and driven by the MCP SDK's own client: the tools,
// a lookup, preview → confirm → TRANSMITTED, the refusals, a live key refused without
// --allow-live, and etax's errors as tool errors.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type ServerEntry = { command: string; args: string[]; env: Record<string, string> };

// The desktop configuration of docs/mcp.md: its first JSON block with `mcpServers`.
function documentedEntry(): ServerEntry {
  const markdown = readFileSync(path.join(ROOT, 'docs/mcp.md'), 'utf8');
  const blocks = [...markdown.matchAll(/```json\n([\s\S]*?)\n```/g)].map((match) => match[1]!);
  const config = blocks.map((block) => JSON.parse(block) as { mcpServers?: Record<string,
    ServerEntry> }).find((parsed) => parsed.mcpServers !== undefined);
  expect(config, 'docs/mcp.md has a configuration snippet').toBeDefined();
  return config!.mcpServers!.etax!;
}

let app: TestApp;
let baseUrl: string;
let key: string;
let liveKey: string;
let supplier: Supplier;
let binFolder: string;

beforeAll(async () => {
  app = await createTestApp({ jobs: true, env: { TAX_INVOICE_TRANSMISSION_DELAY_SECONDS: '0' } });
  baseUrl = await app.server.listen({ port: 0, host: '127.0.0.1' });
  const account = await app.createFundedAccount(10_000);
  key = account.keys.test;
  liveKey = account.keys.live;
  supplier = await registerSupplier(app, key);
  // `etax` on the PATH, as an installed etax puts it there.
  binFolder = mkdtempSync(path.join(tmpdir(), 'etax-bin-'));
  symlinkSync(path.join(ROOT, 'bin/etax.js'), path.join(binFolder, 'etax'));
});
afterAll(async () => {
  await app?.close();
  if (binFolder) rmSync(binFolder, { recursive: true, force: true });
});

async function launch(apiKey: string): Promise<Client> {
  const entry = documentedEntry();
  expect(Object.keys(entry.env).sort()).toEqual(['ETAX_API_KEY', 'ETAX_BASE_URL']);
  const values: Record<string, string> = { ETAX_API_KEY: apiKey, ETAX_BASE_URL: baseUrl };
  const env = Object.fromEntries(Object.entries({ ...cliEnv({}),
    ...Object.fromEntries(Object.keys(entry.env).map((name) => [name, values[name]!])),
    PATH: `${binFolder}${path.delimiter}${process.env.PATH ?? ''}` })
    .filter((pair): pair is [string, string] => pair[1] !== undefined));
  const client = new Client({ name: 'etax-desktop-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args,
    env, cwd: ROOT, stderr: 'pipe' }));
  return client;
}

type ToolAnswer = { isError?: boolean; content: Array<{ type: string; text?: string }> };

function parsed(result: unknown): Record<string, unknown> {
  const text = (result as ToolAnswer).content.find((item) => item.type === 'text')?.text;
  expect(text, JSON.stringify(result)).toBeDefined();
  return JSON.parse(text!) as Record<string, unknown>;
}

describe('etax mcp over stdio, launched from the documented configuration', () => {
  let client: Client;

  beforeAll(async () => {
    client = await launch(key);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
  });

  const call = (name: string, args: Record<string, unknown>) =>
    client.callTool({ name, arguments: args });
  const issueArgs = (overrides: Record<string, unknown> = {}) =>
    ({ supplierKey: supplier.supplierKey, body: invoiceBody(overrides) });

  it('lists the tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['list_issuers', 'preview_issue_tax_invoice',
      'issue_tax_invoice', 'preview_issue_cash_receipt', 'issue_cash_receipt',
      'preview_request_document', 'request_document', 'get_points_balance']));
    const lookup = tools.find((tool) => tool.name === 'get_issuer')!;
    expect(lookup.inputSchema.required).toEqual(['issuerId']);
    expect(lookup.annotations?.readOnlyHint).toBe(true);
  });

  it('looks the issuers up', async () => {
    const answer = parsed(await call('list_issuers', {})) as { issuers: unknown[] };
    expect(answer.issuers).toEqual([expect.objectContaining({
      supplierKey: supplier.supplierKey })]);
  });

  it('previews, refuses what was not confirmed, and issues once to TRANSMITTED', async () => {
    expect(parsed(await call('issue_tax_invoice', issueArgs()))).toMatchObject({
      refused: 'CONFIRMATION_REQUIRED' });
    const preview = parsed(await call('preview_issue_tax_invoice', issueArgs()));
    expect(preview.wouldDo).toMatchObject({ valid: true, price: { points: 100 } });
    const token = preview.confirmationToken as string;
    expect(parsed(await call('issue_tax_invoice', { ...issueArgs({ description: '바뀐 내용' }),
      confirmationToken: token }))).toMatchObject({ refused: 'CONFIRMATION_MISMATCH' });
    const issued = parsed(await call('issue_tax_invoice', { ...issueArgs(),
      confirmationToken: token })) as { result: { issuanceKey: string } };
    expect(parsed(await call('issue_tax_invoice', { ...issueArgs(),
      confirmationToken: token }))).toMatchObject({ refused: 'CONFIRMATION_REUSED' });
    const invoice = await pollUntil(async () => parsed(await call('get_tax_invoice',
      { issuanceKey: issued.result.issuanceKey })),
    (found) => ['TRANSMITTED', 'FAILED'].includes(found.status as string));
    expect(invoice.status).toBe('TRANSMITTED');
    const list = parsed(await call('list_tax_invoices', { limit: 100 })) as {
      taxInvoices: unknown[] };
    expect(list.taxInvoices).toHaveLength(1);
  });

  it('answers etax errors as tool errors with the code and message', async () => {
    const answer = await call('get_tax_invoice', { issuanceKey: 'txi_unknown' });
    expect((answer as ToolAnswer).isError).toBe(true);
    expect(parsed(answer)).toMatchObject({ error: { status: 404, code: 'NOT_FOUND' } });
  });
});

describe('etax mcp with a live key', () => {
  it('refuses every tool without --allow-live, and says how to allow it', async () => {
    const client = await launch(liveKey);
    const answer = await client.callTool({ name: 'get_points_balance', arguments: {} });
    expect((answer as ToolAnswer).isError).toBe(true);
    const refusal = parsed(answer);
    expect(refusal).toMatchObject({ refused: 'LIVE_KEY_REFUSED' });
    expect(refusal.message).toMatch(/--allow-live/);
    await client.close();
  }, 120_000);
});
