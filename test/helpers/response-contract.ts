import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { readDocument } from './openapi-operations.ts';

// Checks a response the server sent against openapi/openapi.json, the document clients generate
// their code from: its status is declared for the operation, its Content-Type is one the status
// declares (or it has no body where none is declared), its body matches the schema, and the
// headers the document speaks of are there exactly where declared (required ones present,
// values matching, none where the response does not declare it). Every test app checks every
// response it sends (test/helpers/app.ts), and a test that made a response breaking the document
// fails (test/helpers/response-contract-setup.ts). Routes the document does not list (pages,
// /docs, routes a test mounts) are not checked.

export type SentResponse = {
  method: string;
  // The route as Fastify knows it, e.g. `/v1/webhookEndpoints/:endpointId(^[^:/]+)::rotateSecret`;
  // undefined when no route matched.
  routeUrl: string | undefined;
  status: number;
  headers: Record<string, unknown>;
  body: string | Buffer | null;
};

type HeaderObject = { required?: boolean; schema?: object; $ref?: string };
type ResponseObject = {
  headers?: Record<string, HeaderObject>;
  content?: Record<string, unknown>;
};
type OperationObject = { responses: Record<string, ResponseObject> };
type Document = {
  paths: Record<string, Record<string, OperationObject>>;
  components?: { headers?: Record<string, HeaderObject> };
};

const DOCUMENT_ID = 'openapi';

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

// `/v1/x/:id(^[^:/]+)::verb` → `/v1/x/{id}:verb`, as @fastify/swagger writes paths.
export function pathTemplate(routeUrl: string): string {
  return routeUrl.replaceAll('::', '\u0000').replace(/:(\w+)(\([^)]*\))?/g, '{$1}')
    .replaceAll('\u0000', ':');
}

function headerValue(headers: Record<string, unknown>, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : String(value);
}

export function createResponseChecker() {
  const document = readDocument() as unknown as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv);
  // A binary body (the PDF) is checked by its Content-Type, not by a schema.
  ajv.addFormat('binary', true);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();

  function validator(...path: string[]): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer(...path)}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.getSchema(ref);
      if (!validate) throw new Error(`openapi/openapi.json has no schema at ${ref}`);
      validators.set(ref, validate);
    }
    return validate;
  }

  const resolveHeader = (header: HeaderObject): HeaderObject => (header.$ref
    ? document.components?.headers?.[header.$ref.split('/').pop()!] ?? {}
    : header);

  // The names of every header the document declares on some response: the server's own.
  const documentedHeaders = new Set(Object.values(document.paths).flatMap((operations) =>
    Object.values(operations).flatMap((operation) => Object.values(operation.responses)
      .flatMap((response) => Object.keys(response.headers ?? {}).map((name) =>
        name.toLowerCase())))));

  function checkHeaders(response: SentResponse, declared: Record<string, HeaderObject>,
    at: string[]): string[] {
    const problems: string[] = [];
    const declaredNames = new Set(Object.keys(declared).map((name) => name.toLowerCase()));
    for (const name of documentedHeaders) {
      if (!declaredNames.has(name) && response.headers[name] !== undefined) {
        problems.push(`sends the header ${name}, which this response does not declare`);
      }
    }
    for (const [name, reference] of Object.entries(declared)) {
      const header = resolveHeader(reference);
      const value = headerValue(response.headers, name);
      if (value === undefined) {
        if (header.required) problems.push(`lacks the required header ${name}`);
        continue;
      }
      const schema = header.schema as { type?: string } | undefined;
      const typed = schema?.type === 'integer' || schema?.type === 'number' ? Number(value)
        : value;
      const path = reference.$ref
        ? ['components', 'headers', reference.$ref.split('/').pop()!, 'schema']
        : [...at, 'headers', name, 'schema'];
      const validate = validator(...path);
      if (!validate(typed)) {
        problems.push(`header ${name}: ${JSON.stringify(value)} ` +
          ajv.errorsText(validate.errors));
      }
    }
    return problems;
  }

  function checkBody(response: SentResponse, content: Record<string, unknown> | undefined,
    at: string[]): string[] {
    const body = response.body ?? '';
    if (content === undefined) {
      return body.length === 0 ? [] : ['has a body where the document declares none'];
    }
    const contentType = headerValue(response.headers, 'content-type') ?? '';
    const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
    if (!(mediaType in content)) {
      return [`is ${mediaType || 'without a Content-Type'}, not ${Object.keys(content).join(
        ' or ')}`];
    }
    if (mediaType !== 'application/json') {
      return body.length > 0 ? [] : [`is an empty ${mediaType}`];
    }
    let value: unknown;
    try {
      value = JSON.parse(String(body));
    } catch {
      return ['is not JSON'];
    }
    const validate = validator(...at, 'content', mediaType, 'schema');
    if (validate(value)) return [];
    return [`body ${ajv.errorsText(validate.errors, { dataVar: 'body' })}: ` +
      String(body).slice(0, 300)];
  }

  // The ways the response breaks the document; empty when it keeps it or is not documented.
  return function check(response: SentResponse): string[] {
    if (response.routeUrl === undefined) return [];
    const template = pathTemplate(response.routeUrl);
    const method = response.method.toLowerCase();
    const operation = document.paths[template]?.[method];
    if (operation === undefined) return [];
    const status = String(response.status);
    const declared = operation.responses[status];
    const what = `${response.method} ${template} → ${status}`;
    if (declared === undefined) {
      return [`${what}: the document does not declare ${status} for this operation ` +
        `(${String(response.body ?? '').slice(0, 200)})`];
    }
    const at = ['paths', template, method, 'responses', status];
    return [...checkHeaders(response, declared.headers ?? {}, at),
      ...checkBody(response, declared.content, at)].map((problem) => `${what}: ${problem}`);
  };
}

// The violations of the responses sent since the last take: the setup file fails the test that
// caused them.
const violations: string[] = [];
let checker: ReturnType<typeof createResponseChecker> | undefined;
let sentCount = 0;

export function checkSentResponse(response: SentResponse): void {
  checker ??= createResponseChecker();
  sentCount += 1;
  violations.push(...checker(response));
}

// How many responses the test apps of this worker have sent through the check.
export function checkedResponseCount(): number {
  return sentCount;
}

export function takeResponseViolations(): string[] {
  return violations.splice(0, violations.length);
}
