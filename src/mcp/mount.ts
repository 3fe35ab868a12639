import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { McpHttpDeps, McpHttpHandler } from './http.ts';

// The MCP endpoint's place in the server: one route, /mcp, registered at start. The MCP SDK and
// the tools are imported on its first request (as the dashboard is, src/dashboard/mount.ts), so
// a server whose /mcp is never called never loads them (docs/mcp.md § A remote agent).

export function mcpPlugin(deps: () => McpHttpDeps) {
  let loading: Promise<McpHttpHandler> | null = null;

  function load(): Promise<McpHttpHandler> {
    loading ??= import('./http.ts').then((module) => module.createMcpHttpHandler(deps()))
      .catch((error: unknown) => {
        // The next request tries again.
        loading = null;
        throw error;
      });
    return loading;
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    return (await load())(request, reply);
  }

  return async function mcp(app: FastifyInstance) {
    app.route({ method: ['GET', 'POST', 'DELETE'], url: '/mcp', schema: { hide: true },
      handler });
  };
}
