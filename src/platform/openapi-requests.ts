import type { RouteOptions } from 'fastify';
import type { BodyRule } from './bodyless.ts';

// Declares what a request must carry as the server reads it, not as the schema is written for
// validation: a value the server fills in with its default is optional to the client (a page
// `limit`, a rotation's `overlapSeconds`), and a body an operation does without
// (src/platform/bodyless.ts) is optional.

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  default?: unknown;
  [keyword: string]: unknown;
};
type ParameterObject = { in: string; required?: boolean; schema?: Schema };
type RequestBodyObject = {
  required?: boolean;
  description?: string;
  content: Record<string, { schema?: Schema }>;
};
type OperationObject = {
  parameters?: ParameterObject[];
  requestBody?: RequestBodyObject;
  [extension: string]: unknown;
};
type OpenApiObject = { paths?: Record<string, Record<string, OperationObject>> };

// Where a route's config.body reaches the document transform: the route transform sets it on the
// operation, and describeRequests removes it.
const BODY_RULE_KEYWORD = 'x-body-rule';

const NO_BODY: RequestBodyObject = {
  required: false,
  description: 'None. The empty object `{}` is accepted too; any other body is 400.',
  content: {
    'application/json': {
      schema: { type: 'object', maxProperties: 0, additionalProperties: false,
        title: 'NoBody' },
    },
  },
};

// For @fastify/swagger's `transform`: carries the route's body rule to the operation.
export function withBodyRule<T extends object>(schema: T, route: RouteOptions): T {
  const rule: BodyRule | undefined = route.config?.body;
  return rule === undefined ? schema : { ...schema, [BODY_RULE_KEYWORD]: rule };
}

// The schemas a schema holds, where a body's nested objects are.
function subschemas(schema: Schema): Schema[] {
  const lists = ['anyOf', 'oneOf', 'allOf'].flatMap((keyword) =>
    (Array.isArray(schema[keyword]) ? schema[keyword] as Schema[] : []));
  const single = [schema.items, schema.additionalProperties]
    .filter((value): value is Schema => typeof value === 'object' && value !== null);
  return [...Object.values(schema.properties ?? {}), ...lists, ...single];
}

// Removes from `required` every property the server defaults, at any depth.
function defaultsOptional(schema: Schema): void {
  const properties = schema.properties ?? {};
  if (schema.required) {
    schema.required = schema.required.filter((name) => properties[name]?.default === undefined);
    if (schema.required.length === 0) delete schema.required;
  }
  subschemas(schema).forEach(defaultsOptional);
}

function describeRequest(operation: OperationObject): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'path' && parameter.schema?.default !== undefined) {
      parameter.required = false;
    }
  }
  for (const media of Object.values(operation.requestBody?.content ?? {})) {
    if (media.schema) defaultsOptional(media.schema);
  }
  const rule = operation[BODY_RULE_KEYWORD] as BodyRule | undefined;
  delete operation[BODY_RULE_KEYWORD];
  if (rule === 'none') operation.requestBody = structuredClone(NO_BODY);
  if (rule === 'optional' && operation.requestBody) operation.requestBody.required = false;
}

export function describeRequests<T>(document: T): T {
  for (const operations of Object.values((document as OpenApiObject).paths ?? {})) {
    for (const operation of Object.values(operations)) describeRequest(operation);
  }
  return document;
}
