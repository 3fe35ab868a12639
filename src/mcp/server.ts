import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isEtaxError, type EtaxClient } from '@etax/sdk';
import {
  keyHashOf,
  referenceIdOf,
  ToolRefusal,
  type Confirmations,
} from './confirmations.ts';
import { operationShape, type OperationShape } from './operation-schemas.ts';
import { defaultPriceOf, readPath, TOOLS, type GuardedTool, type ReadTool } from './tools.ts';

// The MCP server over the etax API (docs/mcp.md), the same over stdio (`etax mcp`) and over
// Streamable HTTP (/mcp). Every tool calls the public API through the SDK with the caller's key,
// so the API's own authentication, validation, rate limits, prices and reference ids apply.
// Safety is enforced here, not left to the client's reading of the tool annotations: guarded
// tools run only with a confirmation token from their preview (confirmations.ts), every action
// carries a Service-Client-Reference-Id derived from that token, and live keys are refused
// unless the server was started to allow them.

export type McpContext = {
  etax: EtaxClient;
  apiKey: string;
  confirmations: Confirmations;
  allowLive: boolean;
  // How the refusal of a live key tells the operator to allow them.
  liveOptIn: string;
  // Where the API is, for links to PDFs.
  baseUrl: string;
};

const SERVER_INFO = { name: 'etax', version: '1.0.0' };

type Args = Record<string, unknown>;

function answer(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

// Errors come back as tool errors the model can read: etax's code and message as the API gave
// them, or the MCP server's own refusal.
function toolError(error: unknown): CallToolResult {
  if (error instanceof ToolRefusal) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify(
      { refused: error.refusal, message: error.message }, null, 2) }] };
  }
  if (isEtaxError(error)) {
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: {
      status: error.status, code: error.code, message: error.message,
      traceId: error.traceId } }, null, 2) }] };
  }
  throw error;
}

type FileInput = { fileName: string; contentBase64: string };

// The multipart form of an operation that takes files: each file part from its input.
function formOf(shape: OperationShape, args: Args): FormData {
  const form = new FormData();
  for (const name of shape.fileParts) {
    const file = args[name] as FileInput;
    form.append(name, new Blob([Buffer.from(file.contentBase64, 'base64')]), file.fileName);
  }
  return form;
}

// Sends `method path` with the tool's arguments through the SDK.
async function send(context: McpContext, tool: { method: string; path: string },
  shape: OperationShape, args: Args, referenceId: string | null,
  parseAs: 'json' | 'arrayBuffer' = 'json'): Promise<unknown> {
  const pick = (names: string[]) => Object.fromEntries(names
    .filter((name) => args[name] !== undefined).map((name) => [name, args[name]]));
  const header: Record<string, string> = {};
  if (shape.takesSupplierKey) header['supplier-key'] = String(args.supplierKey);
  if (shape.takesReferenceId && referenceId !== null) {
    header['service-client-reference-id'] = referenceId;
  }
  const call = (context.etax as unknown as Record<string, (path: string, init: unknown) =>
    Promise<{ data?: unknown; error?: unknown; response: Response }>>)[
    tool.method.toUpperCase()]!;
  let body = {};
  if (shape.fileParts.length > 0) {
    // The form is sent as it is; fetch writes its multipart boundary.
    body = { body: formOf(shape, args), bodySerializer: (form: unknown) => form };
  } else if (shape.takesBody && args.body !== undefined) {
    body = { body: args.body };
  }
  const { data, error, response } = await call(tool.path, {
    params: { path: pick(shape.pathParameters), query: pick(shape.queryParameters), header },
    ...body,
    parseAs,
  });
  if (!response.ok) {
    const { EtaxError } = await import('@etax/sdk');
    throw EtaxError.fromResponse(response, error);
  }
  return data ?? null;
}

function refuseLive(context: McpContext) {
  if (context.apiKey.startsWith('live_') && !context.allowLive) {
    throw new ToolRefusal('LIVE_KEY_REFUSED', 'This MCP server refuses live keys: tools act ' +
      `on test data only unless it was started with ${context.liveOptIn}. Use a test_ key, ` +
      'or ask the operator to allow live keys.');
  }
}

function registerRead(server: McpServer, context: McpContext, tool: ReadTool) {
  const shape = operationShape(tool.method, tool.path);
  server.registerTool(tool.name, { title: tool.title, description: tool.description,
    inputSchema: shape.shape, annotations: { title: tool.title, readOnlyHint: true,
      openWorldHint: false } }, async (args: Args) => {
    try {
      refuseLive(context);
      if (tool.pdf === 'link') {
        // The PDF exists (or this answers the API's 404); the link is the API's address.
        await readPath(context.etax, tool.path.replace('/pdf', '')
          .replace('{issuanceKey}', encodeURIComponent(String(args.issuanceKey))));
        const uri = `${context.baseUrl}${tool.path.replace('{issuanceKey}',
          encodeURIComponent(String(args.issuanceKey)))}`;
        return { content: [{ type: 'resource_link', uri, name: `${String(args.issuanceKey)}.pdf`,
          mimeType: 'application/pdf', description: 'Opens with the API key (HTTP Basic).' }] };
      }
      if (tool.pdf === 'download') {
        const bytes = await send(context, tool, shape, args, null, 'arrayBuffer');
        const uri = `${context.baseUrl}${tool.path.replace('{issuanceKey}',
          encodeURIComponent(String(args.issuanceKey)))}`;
        return { content: [{ type: 'resource', resource: { uri, mimeType: 'application/pdf',
          blob: Buffer.from(bytes as ArrayBuffer).toString('base64') } }] };
      }
      return answer(await send(context, tool, shape, args, null));
    } catch (error) {
      return toolError(error);
    }
  });
}

const previewName = (tool: GuardedTool) => `preview_${tool.name}`;

async function preview(context: McpContext, tool: GuardedTool, shape: OperationShape,
  args: Args) {
  const { id, token, expiresAt } = context.confirmations.issue(tool.name, args,
    keyHashOf(context.apiKey));
  const referenceId = shape.takesReferenceId ? referenceIdOf(id) : null;
  const request = { method: tool.method.toUpperCase(), path: tool.path, referenceId };
  let wouldDo: unknown;
  if ('validate' in tool.preview) {
    wouldDo = await send(context, { method: 'post', path: tool.preview.validate }, shape, args,
      referenceId);
  } else {
    wouldDo = { ...(tool.preview.read ? await tool.preview.read({ etax: context.etax,
      arguments: args, referenceId }) as object : {}),
    price: defaultPriceOf(tool, args) };
  }
  const balance = await readPath(context.etax, '/v1/points');
  return { action: tool.name, request, wouldDo, balance, confirmationToken: token,
    expiresAt: expiresAt.toISOString(),
    next: `Show this to the person you act for. If they agree, call ${tool.name} with the ` +
      'same arguments and this confirmationToken before it expires; it works once.' };
}

function registerGuarded(server: McpServer, context: McpContext, tool: GuardedTool) {
  const shape = operationShape(tool.method, tool.path);
  server.registerTool(previewName(tool), { title: `Preview: ${tool.title}`,
    description: `Shows what ${tool.name} would do, without doing it, and answers the ` +
      `confirmationToken ${tool.name} needs. ${tool.description}`,
    inputSchema: shape.shape, annotations: { title: `Preview: ${tool.title}`,
      readOnlyHint: true, openWorldHint: false } }, async (args: Args) => {
    try {
      refuseLive(context);
      return answer(await preview(context, tool, shape, args));
    } catch (error) {
      return toolError(error);
    }
  });
  server.registerTool(tool.name, { title: tool.title,
    description: `${tool.description} Runs only with the confirmationToken of ` +
      `${previewName(tool)} for exactly these arguments, once, within five minutes.`,
    inputSchema: { ...shape.shape, confirmationToken: z.string().max(1_000).optional()
      .describe(`The token ${previewName(tool)} answered for these arguments. Required.`) },
    annotations: { title: tool.title, readOnlyHint: false, destructiveHint: tool.destructive,
      // With its token an action runs once: a repeated call changes nothing more.
      idempotentHint: true, openWorldHint: true } }, async (input: Args) => {
    try {
      refuseLive(context);
      const { confirmationToken, ...args } = input;
      const tokenId = await context.confirmations.redeem({ tool: tool.name,
        previewTool: previewName(tool), arguments: args, keyHash: keyHashOf(context.apiKey),
        token: confirmationToken as string | undefined });
      const referenceId = shape.takesReferenceId ? referenceIdOf(tokenId) : null;
      const result = await send(context, tool, shape, args, referenceId);
      return answer({ action: tool.name, referenceId, result });
    } catch (error) {
      return toolError(error);
    }
  });
}

export function createEtaxMcpServer(context: McpContext): McpServer {
  const server = new McpServer(SERVER_INFO, { instructions: 'Tools over the etax API (Korean ' +
    'e-tax invoices, cash receipts, documents, business and bank lookups). Anything that ' +
    'issues, cancels, amends or spends points is two calls: preview_<tool>, shown to the ' +
    'person you act for, then <tool> with the confirmationToken it answered.' });
  for (const tool of TOOLS) {
    if (tool.kind === 'read') registerRead(server, context, tool);
    else registerGuarded(server, context, tool);
  }
  return server;
}
