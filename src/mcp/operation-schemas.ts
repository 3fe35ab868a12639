import { readFileSync } from 'node:fs';
import { z } from 'zod';

// The input schemas of the MCP tools, made from the API's own OpenAPI document
// (openapi/openapi.json, generated from the route schemas): a tool takes its operation's path
// parameters, query parameters, `Supplier-Key` and body exactly as the API declares them, so a
// tool's schema and the API's cannot drift apart. The reference id header is not an input: the
// MCP server sets it itself (docs/mcp.md § Safety). A file part of a multipart form, which a
// tool call cannot carry as bytes, is taken as its file name and its content in base64.

type JsonSchema = Record<string, unknown>;
type Parameter = { name: string; in: string; required?: boolean; description?: string;
  schema: JsonSchema };
type OperationObject = { operationId: string; parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: JsonSchema }> } };
type Document = { paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, JsonSchema> } };

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

let loaded: Document | undefined;

function document(): Document {
  loaded ??= JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url),
    'utf8')) as Document;
  return loaded;
}

// A schema with its references replaced by what they name, and without examples (a tool's
// schema is read by a model: the descriptions say what a field is).
function inline(node: unknown, components: Record<string, JsonSchema>, depth = 0): unknown {
  if (depth > 32) throw new Error('the OpenAPI document nests its schemas too deeply');
  if (Array.isArray(node)) return node.map((item) => inline(item, components, depth + 1));
  if (node === null || typeof node !== 'object') return node;
  const record = node as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const name = record.$ref.split('/').at(-1)!;
    return inline(components[name], components, depth + 1);
  }
  return Object.fromEntries(Object.entries(record)
    .filter(([key]) => key !== 'examples' && key !== 'example')
    .map(([key, value]) => [key, inline(value, components, depth + 1)]));
}

export type OperationShape = {
  operationId: string;
  pathParameters: string[];
  queryParameters: string[];
  takesSupplierKey: boolean;
  takesReferenceId: boolean;
  takesBody: boolean;
  // The file parts of a multipart form body, by name: each an input { fileName,
  // contentBase64 } that is sent as a file part.
  fileParts: string[];
  shape: Record<string, z.ZodType>;
};

// Base64 of 16 MiB, above the largest file any operation takes (a certificate of 10 MiB,
// docs/certificate-verification.md), so that the API, not the tool, answers a file too large.
const FILE_BASE64_LENGTH_MAX = Math.ceil(16_777_216 / 3) * 4;

const FilePart = (description: string | undefined) => z.object({
  fileName: z.string().min(1).max(255).describe('The file\'s name, with its extension.'),
  contentBase64: z.base64().max(FILE_BASE64_LENGTH_MAX)
    .describe('The file\'s bytes in base64.'),
}).describe(description ?? 'A file.');

// The parts of a multipart form that are files (`format: binary`), with their descriptions.
function filePartsOf(schema: unknown): Array<[string, string | undefined]> {
  const properties = (schema as { properties?: Record<string, JsonSchema> }).properties ?? {};
  return Object.entries(properties).filter(([, property]) => property.format === 'binary')
    .map(([name, property]) => [name, property.description as string | undefined]);
}

function zodOf(schema: unknown, description?: string): z.ZodType {
  const type = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  return description === undefined ? type : type.describe(description);
}

// Made once per operation and process: /mcp builds its tools for every request.
const shapes = new Map<string, OperationShape>();

// What a tool over `method path` takes, from the document.
export function operationShape(method: HttpMethod, path: string): OperationShape {
  const key = `${method} ${path}`;
  const known = shapes.get(key);
  if (known !== undefined) return known;
  const shape = shapeOf(method, path);
  shapes.set(key, shape);
  return shape;
}

function shapeOf(method: HttpMethod, path: string): OperationShape {
  const { paths, components } = document();
  const operation = paths[path]?.[method];
  if (operation === undefined) throw new Error(`the OpenAPI document has no ${method} ${path}`);
  const parameters = (operation.parameters ?? [])
    .map((parameter) => inline(parameter, components.schemas) as Parameter);
  const shape: Record<string, z.ZodType> = {};
  const named = (place: string) => parameters.filter((parameter) => parameter.in === place);
  for (const parameter of [...named('path'), ...named('query')]) {
    const type = zodOf(parameter.schema, parameter.description);
    shape[parameter.name] = parameter.required === true ? type : type.optional();
  }
  const headers = named('header').map((parameter) => parameter.name.toLowerCase());
  const takesSupplierKey = headers.includes('supplier-key');
  if (takesSupplierKey) {
    const header = named('header').find((parameter) =>
      parameter.name.toLowerCase() === 'supplier-key')!;
    shape.supplierKey = zodOf(header.schema, 'The `supplierKey` of the issuer that issues ' +
      '(the Supplier-Key header): see list_issuers.');
  }
  const body = operation.requestBody?.content['application/json']?.schema;
  if (body !== undefined) {
    const type = zodOf(inline(body, components.schemas));
    shape.body = operation.requestBody?.required === true ? type : type.optional();
  }
  const form = operation.requestBody?.content['multipart/form-data']?.schema;
  const fileParts = form === undefined ? [] : filePartsOf(inline(form, components.schemas));
  for (const [name, description] of fileParts) shape[name] = FilePart(description);
  return {
    operationId: operation.operationId,
    pathParameters: named('path').map((parameter) => parameter.name),
    queryParameters: named('query').map((parameter) => parameter.name),
    takesSupplierKey,
    takesReferenceId: headers.includes('service-client-reference-id'),
    takesBody: body !== undefined,
    fileParts: fileParts.map(([name]) => name),
    shape,
  };
}
