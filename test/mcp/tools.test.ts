// Every tool of the MCP server that can spend points is guarded: a preview, then the action with
// its confirmation token (docs/mcp.md § Tools). The rule is read from the operation table
// (src/platform/operations.ts) through each route's own `config.operation`, on a server built
// from the route schemas, so a read tool over an operation that is charged, or becomes charged,
// fails here; so does a preview whose price row or validation is not its operation's.
import type { RouteOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSchemaOnlyServer } from '../../src/cli/openapi.ts';
import { TOOLS, type Tool } from '../../src/mcp/tools.ts';
import {
  isChargedOperation,
  isOperation,
  OPERATIONS,
  type Operation,
} from '../../src/platform/operations.ts';

// `/v1/taxInvoices/:issuanceKey/amendments/termination::validate` as the OpenAPI document and
// the tools write it: `{issuanceKey}` (a parameter's pattern, `:endpointId(^[^:/]+)`, left
// out), and a literal colon once.
function documentPath(url: string): string {
  return url.split('::').map((part) => part.replace(/:(\w+)(\([^)]*\))?/g, '{$1}')).join(':');
}

let operations: Map<string, Operation>;

beforeAll(async () => {
  const found = new Map<string, Operation>();
  const app = await buildSchemaOnlyServer(undefined, (server) => {
    server.addHook('onRoute', (route: RouteOptions) => {
      const operation: string | undefined = route.config?.operation;
      if (operation === undefined || !isOperation(operation)) return;
      for (const method of [route.method].flat()) {
        found.set(`${String(method)} ${documentPath(route.url)}`, operation);
      }
    });
  });
  await app.ready();
  await app.close();
  operations = found;
});

const operationOf = (method: string, path: string) =>
  operations.get(`${method.toUpperCase()} ${path}`);

// What breaks the rule, one line per tool.
function violations(tools: readonly Tool[]): string[] {
  return tools.flatMap((tool) => {
    const operation = operationOf(tool.method, tool.path);
    if (operation === undefined) return [`${tool.name}: no operation ${tool.method} ${tool.path}`];
    if (tool.kind === 'read') {
      if (isChargedOperation(operation)) {
        return [`${tool.name}: ${operation} can spend points, and the tool is not guarded`];
      }
      return tool.method === 'get' ? [] : [`${tool.name}: a read tool over ${tool.method}`];
    }
    if ('validate' in tool.preview) {
      const validation = operationOf('post', tool.preview.validate);
      if (validation === undefined) return [`${tool.name}: no validation ${tool.preview.validate}`];
      return isChargedOperation(validation) ? [`${tool.name}: its validation is charged`] : [];
    }
    const row = tool.preview.price?.({}).row;
    const entry = OPERATIONS[operation] as { price?: string; priceRows?: readonly string[] };
    const charged = [...(entry.price === undefined ? [] : [entry.price]),
      ...(entry.priceRows ?? [])];
    if (row !== undefined && !charged.includes(row)) {
      return [`${tool.name}: its preview prices ${row}, ${operation} is charged from ` +
        `${charged.join(', ') || 'nothing'}`];
    }
    return [];
  });
}

describe('the MCP tools against the operation table', () => {
  it('reads the routes\' operations', () => {
    expect(operationOf('get', '/v1/points')).toBe('points.retrieve');
    expect(operationOf('post', '/v1/taxInvoices:validate')).toBe('taxInvoices.validate');
  });

  it('guards every tool whose operation can spend points, and prices previews by its row', () => {
    expect(violations(TOOLS)).toEqual([]);
  });

  it('finds a read tool over a charged operation', () => {
    const charged: Tool = { kind: 'read', name: 'probe', title: 'Probe', description: 'Probe.',
      method: 'get', path: '/v1/businessRegistrationStatuses/{businessRegistrationNumber}' };
    expect(violations([charged])).toEqual([
      'probe: businesses.registrationStatus.inquire can spend points, and the tool is not ' +
        'guarded']);
  });

  it('counts an operation charged from the row its request chooses as charged', () => {
    const documents: Tool = { kind: 'read', name: 'probe', title: 'Probe', description: 'Probe.',
      method: 'post', path: '/v1/documents/issue' };
    expect(violations([documents])).toEqual([
      'probe: documents.issue can spend points, and the tool is not guarded']);
  });
});
