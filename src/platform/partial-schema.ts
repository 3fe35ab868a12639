import { Type, type TSchema } from 'typebox';

// The schema of a request body that may be incomplete, made from the schema of the complete
// one (drafts, src/areas/drafts/): every field at every depth becomes optional, arrays may be
// empty, and everything else the schema says of a value that is there (types, lengths,
// patterns, formats, enums, the most items) still holds. With `nullable`, every field may also
// be null: a JSON merge patch (RFC 7396), where null removes the field.
//
// Titles of the nested schemas are dropped so that the OpenAPI document keeps one component per
// title (the complete body's); the root gets the title given.

type Json = Record<string, unknown>;

function isObjectSchema(schema: Json): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

function partialOf(schema: Json, nullable: boolean): Json {
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'title' || key === '$id' || key === 'required' || key === 'minItems' ||
      key === 'examples' || key === 'default') continue;
    copy[key] = value;
  }
  if (isObjectSchema(schema)) {
    const properties: Json = {};
    for (const [name, property] of Object.entries(schema.properties as Json)) {
      const partial = partialOf(property as Json, nullable);
      properties[name] = nullable ? { anyOf: [partial, { type: 'null' }] } : partial;
    }
    copy.properties = properties;
  }
  if (schema.type === 'array' && typeof schema.items === 'object') {
    copy.items = partialOf(schema.items as Json, false);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      copy[key] = (schema[key] as Json[]).map((branch) => partialOf(branch, false));
    }
  }
  return copy;
}

export function partialSchema<T>(schema: TSchema, options: { title: string;
  description: string; nullable?: boolean }) {
  // Plain JSON: the TypeBox kinds of the complete schema say nothing true of the copy.
  const json = JSON.parse(JSON.stringify(schema)) as Json;
  return Type.Unsafe<T>({ ...partialOf(json, options.nullable ?? false),
    title: options.title, description: options.description });
}

// A JSON merge patch (RFC 7396) applied to a document: objects merge field by field, null
// removes a field, anything else (arrays included) replaces what was there.
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Json = target !== null && typeof target === 'object' && !Array.isArray(target)
    ? { ...(target as Json) } : {};
  for (const [key, value] of Object.entries(patch as Json)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}
