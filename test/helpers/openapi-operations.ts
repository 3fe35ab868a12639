import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The operations of the committed OpenAPI document, read as a client would read them: method,
// path template, parameters, JSON body schema and documented statuses. Tests that must cover
// every operation walk this list, so a new route is covered the day it is added.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  default?: unknown;
  examples?: unknown[];
  const?: unknown;
};

export type Parameter = {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
  // The document's example value of the parameter, when it gives one.
  example?: unknown;
};

export type Operation = {
  operationId: string;
  method: string;
  // The path template, e.g. /v1/webhookEndpoints/{endpointId}.
  path: string;
  parameters: Parameter[];
  body: JsonSchema | null;
  // False for an operation that takes no body or whose body may be left out.
  bodyRequired: boolean;
  // The document's example JSON bodies: its `example`, or the values of its `examples`.
  bodyExamples: unknown[];
  statuses: number[];
  authenticated: boolean;
};

type RawMediaType = {
  schema: JsonSchema;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};

type RawOperation = {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, RawMediaType> };
  responses: Record<string, unknown>;
  security?: unknown[];
};

type RawDocument = {
  paths: Record<string, Record<string, RawOperation>>;
  security?: unknown[];
  components?: { schemas?: Record<string, JsonSchema> };
};

// The schema with every `#/components/schemas/…` reference replaced by the schema it names.
function resolved(value: unknown, document: RawDocument): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(item, document));
  if (typeof value !== 'object' || value === null) return value;
  const { $ref } = value as { $ref?: string };
  if (typeof $ref === 'string' && $ref.startsWith('#/components/schemas/')) {
    const name = $ref.slice('#/components/schemas/'.length);
    const target = document.components?.schemas?.[name];
    if (target === undefined) throw new Error(`openapi/openapi.json: no schema ${name}`);
    return resolved(target, document);
  }
  return Object.fromEntries(Object.entries(value)
    .map(([key, inner]) => [key, resolved(inner, document)]));
}

export function readDocument(): RawDocument {
  return JSON.parse(readFileSync(path.join(ROOT, 'openapi/openapi.json'), 'utf8')) as RawDocument;
}

export function readOperations(): Operation[] {
  const document = readDocument();
  const operations: Operation[] = [];
  for (const [pathTemplate, methods] of Object.entries(document.paths)) {
    for (const [method, raw] of Object.entries(methods)) {
      const security = raw.security ?? document.security ?? [];
      const json = raw.requestBody?.content['application/json'];
      const bodyExamples = json?.example !== undefined ? [json.example]
        : Object.values(json?.examples ?? {}).map((example) => example.value);
      operations.push({
        operationId: raw.operationId,
        method: method.toUpperCase(),
        path: pathTemplate,
        parameters: raw.parameters ?? [],
        body: json?.schema ? resolved(json.schema, document) as JsonSchema : null,
        bodyRequired: raw.requestBody?.required === true,
        bodyExamples,
        statuses: Object.keys(raw.responses).map(Number),
        authenticated: security.length > 0,
      });
    }
  }
  return operations;
}

// A value the schema accepts: its first example, default, const or enum value, or the
// smallest value of its type.
export function sampleValue(schema: JsonSchema): unknown {
  if (schema.examples?.length) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  if (schema.anyOf?.length) return sampleValue(schema.anyOf[0]!);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const name of schema.required ?? []) {
        value[name] = sampleValue(schema.properties![name]!);
      }
      return value;
    }
    case 'array':
      return Array.from({ length: Math.max(schema.minItems ?? 1, 1) },
        () => sampleValue(schema.items ?? {}));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'a'.repeat(Math.max(schema.minLength ?? 1, 1));
  }
}

export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? 'x');
}
