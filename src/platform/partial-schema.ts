import { Type, type TSchema } from 'typebox';

// The schema of a request body that may be incomplete, made from the schema of the complete
// one (drafts, src/areas/drafts/): every field at every depth becomes optional, arrays may be
// empty, and everything else the schema says of a value that is there (types, lengths,
// patterns, formats, enums, the most items) still holds. With `nullable`, every field may also
// be null: a JSON merge patch (RFC 7396), where null removes the field. With `openEnums`, an
// enum of several values becomes an open one (a string with `x-extensible-enum`): the schema of
// an answer, which may carry values added later (docs/api-conventions.md).
//
// Titles of the nested schemas are dropped so that the OpenAPI document keeps one component per
// title (the complete body's); the root gets the title given.

type Json = Record<string, unknown>;

function isObjectSchema(schema: Json): boolean {
  return schema.type === 'object' && typeof schema.properties === 'object';
}

type Options = { nullable: boolean; openEnums: boolean };

function partialOf(schema: Json, options: Options): Json {
  const { nullable } = options;
  const copy: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'title' || key === '$id' || key === 'required' || key === 'minItems' ||
      key === 'examples' || key === 'default') continue;
    copy[key] = value;
  }
  if (options.openEnums && Array.isArray(schema.enum) && schema.enum.length > 1) {
    delete copy.enum;
    copy.type = 'string';
    copy['x-extensible-enum'] = schema.enum;
  }
  if (isObjectSchema(schema)) {
    const properties: Json = {};
    for (const [name, property] of Object.entries(schema.properties as Json)) {
      const partial = partialOf(property as Json, options);
      properties[name] = nullable ? { anyOf: [partial, { type: 'null' }] } : partial;
    }
    copy.properties = properties;
  }
  if (schema.type === 'array' && typeof schema.items === 'object') {
    copy.items = partialOf(schema.items as Json, { ...options, nullable: false });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[key])) {
      copy[key] = (schema[key] as Json[]).map((branch) =>
        partialOf(branch, { ...options, nullable: false }));
    }
  }
  return copy;
}

export function partialSchema<T>(schema: TSchema, options: { title: string;
  description: string; nullable?: boolean; openEnums?: boolean }) {
  // Plain JSON: the TypeBox kinds of the complete schema say nothing true of the copy.
  const json = JSON.parse(JSON.stringify(schema)) as Json;
  return Type.Unsafe<T>({ ...partialOf(json, { nullable: options.nullable ?? false,
    openEnums: options.openEnums ?? false }),
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

const isPlainObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

// The JSON merge patch (RFC 7396) that turns `before` into `after`: mergePatch(before, patch)
// equals `after`. Fields `after` lacks are null (removed), objects are patched field by field,
// anything else that differs (arrays included) is given whole. `after` holds no null, which a
// merge patch cannot set.
export function mergePatchBetween(before: unknown, after: unknown): unknown {
  if (!isPlainObject(before) || !isPlainObject(after)) return after;
  const patch: Json = {};
  for (const key of Object.keys(before)) {
    if (!(key in after)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (JSON.stringify(canonical(old)) === JSON.stringify(canonical(value))) continue;
    patch[key] = isPlainObject(old) && isPlainObject(value) ? mergePatchBetween(old, value)
      : value;
  }
  return patch;
}

// A value with its objects' keys sorted, so two equal values print alike.
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
}
