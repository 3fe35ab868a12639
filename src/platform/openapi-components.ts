// Gives every titled schema of the request bodies and responses its title as a name in
// `components.schemas` and refers to it there: generated clients get named types (`TaxInvoice`,
// not an anonymous type per operation), and the document states each shape once. Two different
// schemas with one title stop the rendering, since a client could not tell them apart; a top-level
// body schema whose examples went to its media type (@fastify/swagger moves them) is no
// different.

type Schema = Record<string, unknown>;
type MediaTypeObject = { schema?: Schema };
type OperationObject = {
  requestBody?: { content?: Record<string, MediaTypeObject> };
  responses?: Record<string, { content?: Record<string, MediaTypeObject> }>;
};
type OpenApiObject = {
  paths?: Record<string, Record<string, OperationObject>>;
  components?: { schemas?: Record<string, Schema> };
};

// The keywords whose value is a schema, a list of schemas, or a map of names to schemas.
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'];
const LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs'];

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function nameSchemas<T>(document: T): T {
  const openapi = document as OpenApiObject;
  const named = new Map<string, { schema: Schema; text: string }>();

  function name(schema: Schema): Schema {
    const inner: Schema = { ...schema };
    for (const keyword of SCHEMA_KEYWORDS) {
      if (isSchema(inner[keyword])) inner[keyword] = name(inner[keyword]);
    }
    for (const keyword of LIST_KEYWORDS) {
      if (Array.isArray(inner[keyword])) inner[keyword] = (inner[keyword] as Schema[]).map(name);
    }
    for (const keyword of MAP_KEYWORDS) {
      if (isSchema(inner[keyword])) {
        inner[keyword] = Object.fromEntries(Object.entries(inner[keyword])
          .map(([key, value]) => [key, isSchema(value) ? name(value) : value]));
      }
    }
    const title = inner.title;
    if (typeof title !== 'string') return inner;
    const { examples, ...shape } = inner;
    const text = JSON.stringify(shape);
    const earlier = named.get(title);
    if (earlier && earlier.text !== text) {
      throw new Error(`two different schemas are titled "${title}": give each its own title`);
    }
    if (!earlier || (examples !== undefined && earlier.schema.examples === undefined)) {
      named.set(title, { schema: inner, text });
    }
    return { $ref: `#/components/schemas/${title}` };
  }

  const nameContent = (content: Record<string, MediaTypeObject> | undefined) => {
    for (const media of Object.values(content ?? {})) {
      if (media.schema) media.schema = name(media.schema);
    }
  };
  for (const operations of Object.values(openapi.paths ?? {})) {
    for (const operation of Object.values(operations)) {
      nameContent(operation.requestBody?.content);
      for (const response of Object.values(operation.responses ?? {})) {
        nameContent(response.content);
      }
    }
  }
  const schemas = Object.fromEntries([...named].sort(([a], [b]) => a.localeCompare(b))
    .map(([title, { schema }]) => [title, schema]));
  openapi.components = { ...openapi.components, schemas: { ...openapi.components?.schemas,
    ...schemas } };
  return document;
}
