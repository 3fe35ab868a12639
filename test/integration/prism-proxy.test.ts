// The committed openapi/openapi.json, checked by a validator that is not ours: Prism's validating
// proxy (test/helpers/prism.ts) stands between a client and a real server and checks every
// request and answer against the document. Each operation is called through it with its example
// request (test/api/operation-examples.ts) and with one naming resources that do not exist; both
// must pass through untouched, with the status the server gave and no violation.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, createTestApp, type TestApp } from '../helpers/app.ts';
import { readOperations, type Operation } from '../helpers/openapi-operations.ts';
import { startPrismProxy, VIOLATIONS_HEADER, type PrismProxy } from '../helpers/prism.ts';
import {
  exampleFor,
  exampleParts,
  makeResources,
  operationName,
  PLACEHOLDER_RESOURCES,
  statusIn,
  type RequestParts,
} from '../api/operation-examples.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCUMENT = path.join(ROOT, 'openapi/openapi.json');

let app: TestApp;
let prism: PrismProxy;

beforeAll(async () => {
  app = await createTestApp({
    jobs: true,
    env: {
      // Jobs are staged but never run: invoices stay PENDING, nothing is sent anywhere.
      WORKERS_ENABLED: 'false',
      WEBHOOK_PRIVATE_TARGETS_ALLOWED: 'true',
      PUBLIC_BASE_URL: 'https://etax.example.com',
    },
  });
  await app.server.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.server.address() as { port: number };
  prism = await startPrismProxy({ document: DOCUMENT, upstream: `http://127.0.0.1:${port}` });
});
afterAll(async () => {
  await prism?.stop();
  await app?.close();
});

type Answer = { status: number; violations: string | null; body: string };

async function throughPrism(parts: RequestParts, key: string): Promise<Answer> {
  const headers: Record<string, string> = { ...parts.headers, authorization: basicAuth(key) };
  let body: string | undefined;
  if (parts.body !== undefined) {
    // A multipart example brings its own content type (with its boundary); the rest are JSON.
    headers['content-type'] ??= 'application/json';
    body = typeof parts.body === 'string' ? parts.body : JSON.stringify(parts.body);
  }
  const search = new URLSearchParams(parts.query).toString();
  const url = `${prism.baseUrl}${parts.path}${search === '' ? '' : `?${search}`}`;
  const response = await fetch(url, { method: parts.method, headers, body });
  return { status: response.status, violations: response.headers.get(VIOLATIONS_HEADER),
    body: (await response.text()).slice(0, 500) };
}

const operations = readOperations();

describe('Prism\'s validating proxy', () => {
  it('has every operation of the document to check', () => {
    expect(operations.filter((operation) => operation.path.startsWith('/v1/')).length)
      .toBeGreaterThan(40);
  });

  for (const operation of operations.filter((each) => !each.path.startsWith('/v1/'))) {
    it(`passes ${operationName(operation)} through`, async () => {
      const response = await fetch(`${prism.baseUrl}${operation.path}`);
      expect(response.headers.get(VIOLATIONS_HEADER), prism.output()).toBeNull();
      expect(response.status).toBe(200);
    });
  }
});

function describeOperation(operation: Operation) {
  describe(operationName(operation), () => {
    it('passes the example request and its answer through', async () => {
      const example = exampleFor(operation);
      const { accountId, keys } = await app.createAccount();
      const resources = await makeResources(app, { accountId, key: keys.test }, 'test',
        example.uses ?? []);
      const answer = await throughPrism(exampleParts(operation, resources, 'test'), keys.test);
      expect(answer.violations, answer.body).toBeNull();
      expect(answer.status, answer.body).toBe(statusIn(example, 'test'));
    });

    it('passes a request naming resources that do not exist and its error through', async () => {
      const { keys } = await app.createAccount();
      const answer = await throughPrism(exampleParts(operation, PLACEHOLDER_RESOURCES, 'test'),
        keys.test);
      expect(answer.violations, answer.body).toBeNull();
      expect(answer.status, answer.body).toBeLessThan(500);
    });
  });
}

for (const operation of operations.filter((each) => each.path.startsWith('/v1/'))) {
  describeOperation(operation);
}
