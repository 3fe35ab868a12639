import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createEtaxClient } from '@etax/sdk';
import type { SealingKey } from '../domain/sealed-box.ts';
import { parseBasicCredentials, type KeyCache } from '../platform/auth.ts';
import type { Db } from '../platform/db/connect.ts';
import { claimOnce } from '../platform/idempotency/claims.ts';
import { createConfirmations, type ClaimOnce } from './confirmations.ts';
import { createEtaxMcpServer } from './server.ts';

// /mcp: the MCP server over Streamable HTTP, stateless (each POST carries a whole exchange), for
// remote agents. The API key authenticates as on /v1 (HTTP Basic; 401 with no body otherwise),
// and the tools reach /v1 through the SDK inside this process (`inject`), so every rule of the
// API applies to them as to any client. Confirmation tokens are sealed under a key derived from
// the encryption key and claimed once in the database, so a token made by one server process
// is accepted by any other, once.

export type McpHttpDeps = {
  server: () => FastifyInstance;
  keys: KeyCache;
  db: Db;
  sealing: SealingKey;
  allowLive: boolean;
  publicBaseUrl: string;
  now: () => Date;
};

export type McpHttpHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

// The SDK's requests, answered by this server without a socket.
function injectingFetch(server: () => FastifyInstance) {
  return async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const payload = request.body === null ? undefined
      : Buffer.from(await request.arrayBuffer());
    const answer = await server().inject({ method: request.method as 'GET',
      url: `${url.pathname}${url.search}`, headers: Object.fromEntries(request.headers),
      ...(payload === undefined ? {} : { payload }) });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value === undefined) continue;
      for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
    }
    const empty = answer.statusCode === 204 || answer.statusCode === 304 ||
      answer.rawPayload.length === 0;
    return new Response(empty ? null : new Uint8Array(answer.rawPayload), {
      status: answer.statusCode,
      headers });
  };
}

export function createMcpHttpHandler(deps: McpHttpDeps): McpHttpHandler {
  const sealing = deps.sealing;
  return async function handle(request, reply) {
    const found = await deps.keys.resolveHeader(request.headers.authorization);
    const apiKey = parseBasicCredentials(request.headers.authorization);
    if (found === null || apiKey === null) {
      return reply.code(401).header('WWW-Authenticate', 'Basic realm="etax"').send();
    }
    const claims: ClaimOnce = (tokenId, requestHash) => claimOnce(deps.db, {
      apiKeyId: found.keyId, namespace: 'mcpConfirmation', referenceId: tokenId,
      fingerprint: requestHash });
    const server = createEtaxMcpServer({
      etax: createEtaxClient({ apiKey, baseUrl: 'http://etax.internal', retry: false,
        fetch: injectingFetch(deps.server) }),
      apiKey,
      confirmations: createConfirmations({ sealing, claimOnce: claims, now: deps.now }),
      allowLive: deps.allowLive,
      liveOptIn: 'MCP_ALLOW_LIVE=true',
      baseUrl: deps.publicBaseUrl,
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined,
      enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
    return reply;
  };
}
