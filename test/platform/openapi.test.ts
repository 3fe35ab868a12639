// The route schemas are the only source of the OpenAPI document. This test proves the committed
// openapi/openapi.json is current (CI fails when it is stale), that it says what every /v1
// operation owes (Basic authentication, a 401 response), that its description names guides that
// are files of the repository, and that the running server serves the same document at
// /openapi.json, linking the guides where GUIDES_BASE_URL says, and a reference page titled
// after etax at /docs.
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApiDocument } from '../../src/cli/openapi.ts';
import { REFERENCE_PAGE_TITLE } from '../../src/platform/openapi.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '../..');
// Where a repository's files might be read; any address ending in '/' will do.
const GUIDES_BASE_URL = 'https://git.example.com/etax/files/main/';

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

type SecurityRequirement = Record<string, string[]>;
type Content = Record<string, { schema?: { $ref?: string } }>;
type Operation = {
  operationId?: string;
  tags?: string[];
  security?: SecurityRequirement[];
  parameters?: Array<{ name: string; in: string; required?: boolean;
    schema?: { default?: unknown } }>;
  responses?: Record<string, { description?: string; content?: Content }>;
};
type OpenApiDocument = {
  openapi: string;
  info: { title: string; version: string; description: string };
  tags?: Array<{ name: string; description?: string }>;
  security?: SecurityRequirement[];
  components?: { securitySchemes?: Record<string, { type: string; scheme?: string }> };
  paths: Record<string, Record<string, Operation>>;
};

let rendered: string;
let document: OpenApiDocument;

beforeAll(async () => {
  rendered = await renderOpenApiDocument();
  document = JSON.parse(rendered) as OpenApiDocument;
});

function operations(): Array<{ where: string; path: string; operation: Operation }> {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => HTTP_METHODS.has(method))
      .map(([method, operation]) => {
        return { where: `${method.toUpperCase()} ${path}`, path, operation };
      }),
  );
}

// The guides the rendered document's description lists, as `- Title: \`path\``.
function listedGuides(): Array<{ title: string; path: string }> {
  return [...document.info.description.matchAll(/^- (.+): `([^`]+)`$/gm)]
    .map(([, title, path]) => ({ title: title!, path: path! }));
}

function basicSchemeNames(): string[] {
  const schemes = document.components?.securitySchemes ?? {};
  return Object.entries(schemes)
    .filter(([, scheme]) => scheme.type === 'http' && scheme.scheme?.toLowerCase() === 'basic')
    .map(([name]) => name);
}

function requiresBasic(requirements: SecurityRequirement[] | undefined): boolean {
  if (!requirements || requirements.length === 0) return false;
  // Every alternative must be Basic: an empty requirement `{}` would make authentication optional.
  return requirements.every((requirement) => {
    const names = Object.keys(requirement);
    return names.length > 0 && names.every((name) => basicSchemeNames().includes(name));
  });
}

describe('the committed document', () => {
  it('equals a freshly rendered document (run `npm run openapi` when this fails)', async () => {
    const committed = await readFile(OPENAPI_FILE, 'utf8');
    expect(committed).toBe(rendered);
  });
});

describe('the rendered document', () => {
  it('is OpenAPI 3.1.0 for API version 1.0.0', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.info.title.length).toBeGreaterThan(0);
  });

  it('declares an HTTP Basic security scheme and requires it globally', () => {
    expect(basicSchemeNames().length).toBeGreaterThan(0);
    expect(requiresBasic(document.security)).toBe(true);
  });

  it('has /v1 operations to check', () => {
    expect(operations().filter(({ path }) => path.startsWith('/v1/')).length).toBeGreaterThan(0);
  });

  it('declares a 401 response on every /v1 operation', () => {
    const missing = operations()
      .filter(({ path, operation }) => path.startsWith('/v1/') && !operation.responses?.['401'])
      .map(({ where }) => where);
    expect(missing).toEqual([]);
  });

  it('requires Basic authentication on every /v1 operation', () => {
    const open = operations()
      .filter(({ path }) => path.startsWith('/v1/'))
      .filter(({ operation }) => !requiresBasic(operation.security ?? document.security))
      .map(({ where }) => where);
    expect(open).toEqual([]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ where, operation }) => operation.operationId ?? where);
    expect(operations().filter(({ operation }) => !operation.operationId)).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares every error body as JSON, whatever the operation\'s success is', () => {
    const other = operations().flatMap(({ where, operation }) =>
      Object.entries(operation.responses ?? {})
        .filter(([status, response]) => Number(status) >= 400 && response.content !== undefined &&
          Object.keys(response.content).join() !== 'application/json')
        .map(([status]) => `${where} ${status}`));
    expect(other).toEqual([]);
  });

  it('names every JSON success response after a schema of components.schemas', () => {
    const unnamed = operations().flatMap(({ where, operation }) =>
      Object.entries(operation.responses ?? {})
        .filter(([status]) => status.startsWith('2'))
        .filter(([, response]) => response.description === 'Default Response' ||
          (response.content?.['application/json'] !== undefined &&
            !response.content['application/json'].schema?.$ref?.startsWith(
              '#/components/schemas/')))
        .map(([status]) => `${where} ${status}`));
    expect(unnamed).toEqual([]);
  });

  it('makes optional every query parameter the server gives a default', () => {
    const defaulted = operations().flatMap(({ where, operation }) =>
      (operation.parameters ?? []).filter((parameter) => parameter.in === 'query' &&
        parameter.schema?.default !== undefined).map((parameter) => ({ where, parameter })));
    expect(defaulted.length).toBeGreaterThan(0);
    expect(defaulted.filter(({ parameter }) => parameter.required)
      .map(({ where, parameter }) => `${where} ${parameter.name}`)).toEqual([]);
  });

  it('names every guide by its path in the repository, without links', () => {
    const guides = listedGuides();
    for (const guide of guides) {
      expect(existsSync(path.join(REPOSITORY_ROOT, guide.path)), guide.path).toBe(true);
    }
    expect(document.info.description).not.toMatch(/\]\(/);
    expect(guides.map((guide) => guide.path)).toEqual(expect.arrayContaining([
      'README.md', 'docs/quickstart.md', 'docs/errors.md', 'docs/webhooks.md', 'sdk/README.md',
    ]));
  });

  it('lists every guide of docs/ once', () => {
    const listed = listedGuides().map((guide) => guide.path);
    const docs = readdirSync(path.join(REPOSITORY_ROOT, 'docs'))
      .filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
    expect(docs.filter((doc) => !listed.includes(doc))).toEqual([]);
    expect(new Set(listed).size).toBe(listed.length);
  });

  // The modules' references are where a new area names its guide; the README's list of guides
  // follows from them, so a guide an area adds cannot be left out of it.
  it('lists no guide of docs/ that the README does not link', async () => {
    const readme = await readFile(path.join(REPOSITORY_ROOT, 'README.md'), 'utf8');
    const listed = listedGuides().map((guide) => guide.path)
      .filter((guide) => guide.startsWith('docs/') && !guide.startsWith('docs/ko/'));
    expect(listed.filter((guide) => !readme.includes(`](${guide})`))).toEqual([]);
  });

  it('declares every tag its operations use, with a description, and uses every tag', () => {
    const declared = (document.tags ?? []).map((tag) => tag.name);
    const used = new Set(operations().flatMap(({ operation }) => operation.tags ?? []));
    expect(operations().filter(({ operation }) => (operation.tags ?? []).length === 0)
      .map(({ where }) => where)).toEqual([]);
    expect([...used].filter((tag) => !declared.includes(tag))).toEqual([]);
    expect(declared.filter((tag) => !used.has(tag))).toEqual([]);
    expect(new Set(declared).size).toBe(declared.length);
    for (const tag of document.tags ?? []) expect(tag.description, tag.name).toBeTruthy();
  });

  it('does not list the documentation routes themselves', () => {
    const paths = Object.keys(document.paths);
    const listed = paths.filter((path) => path.startsWith('/docs') || path === '/openapi.json');
    expect(listed).toEqual([]);
  });
});

describe('the running server', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await createTestApp({ env: { GUIDES_BASE_URL } });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves at GET /openapi.json the paths of the rendered document, without a key', async () => {
    const response = await app.server.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const served = response.json() as OpenApiDocument;
    expect(served.openapi).toBe('3.1.0');
    expect(served.paths).toEqual(document.paths);
    expect(served.components).toEqual(document.components);
  });

  it('links every guide under GUIDES_BASE_URL in the served document', async () => {
    const served = (await app.server.inject({ method: 'GET', url: '/openapi.json' }))
      .json() as OpenApiDocument;
    const guides = listedGuides();
    expect(guides.length).toBeGreaterThan(20);
    for (const guide of guides) {
      expect(served.info.description)
        .toContain(`[${guide.title}](${GUIDES_BASE_URL}${guide.path})`);
    }
  });

  it(`titles the reference page at GET /docs/ "${REFERENCE_PAGE_TITLE}"`, async () => {
    const response = await app.server.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(`<title>${REFERENCE_PAGE_TITLE}</title>`);
    expect(response.body).not.toContain('Swagger UI</title>');
  });

  it('serves an HTML reference page at GET /docs, without a key', async () => {
    let response = await app.server.inject({ method: 'GET', url: '/docs' });
    if (response.statusCode >= 300 && response.statusCode < 400) {
      const location = new URL(String(response.headers.location), 'http://localhost/docs');
      response = await app.server.inject({ method: 'GET', url: location.pathname });
    }
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body.toLowerCase()).toContain('<html');
  });
});
