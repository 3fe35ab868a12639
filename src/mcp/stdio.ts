import { randomBytes } from 'node:crypto';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createEtaxClient, DEFAULT_BASE_URL } from '@etax/sdk';
import { createSealingKey } from '../domain/sealed-box.ts';
import { claimsInProcess, createConfirmations } from './confirmations.ts';
import { createEtaxMcpServer } from './server.ts';
import { systemOutside } from '../platform/outside.ts';

// `etax mcp`: the MCP server over stdio for a desktop agent (docs/mcp.md § A desktop agent).
// It talks to an etax server through the SDK with the key of ETAX_API_KEY; its confirmation
// tokens are sealed with a key of its own made at start and used once in this process.

const API_KEY_VARIABLE = 'ETAX_API_KEY';
const BASE_URL_VARIABLE = 'ETAX_BASE_URL';

export class McpStartError extends Error {}

export async function serveMcpOverStdio(options: { allowLive: boolean;
  env?: NodeJS.ProcessEnv }) {
  const env = options.env ?? process.env;
  const apiKey = env[API_KEY_VARIABLE];
  if (apiKey === undefined || !/^(test|live)_[A-Za-z0-9_-]{43}$/.test(apiKey)) {
    throw new McpStartError(`${API_KEY_VARIABLE} must hold an etax API key (test_… or live_…).`);
  }
  const baseUrl = (env[BASE_URL_VARIABLE] ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  // The client's own process: its confirmations expire by the system clock.
  const { now } = systemOutside();
  const server = createEtaxMcpServer({
    etax: createEtaxClient({ apiKey, baseUrl, retry: false }),
    apiKey,
    confirmations: createConfirmations({ sealing: createSealingKey(randomBytes(32)),
      claimOnce: claimsInProcess(now), now }),
    allowLive: options.allowLive,
    liveOptIn: '`etax mcp --allow-live`',
    baseUrl,
  });
  await server.connect(new StdioServerTransport());
  return server;
}
