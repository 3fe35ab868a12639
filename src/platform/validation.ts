import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import { validationMessage } from './validation-messages.ts';

// Request validation. JSON bodies are validated strictly: a number where a string belongs is a
// 400, never silently converted. Path, query and headers arrive as strings, so those parts are
// coerced to the declared types.
const COMMON_OPTIONS: Options = {
  allErrors: false,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
};

// A date is a real calendar day of the years 0001 to 9999 (YYYY-MM-DD). RFC 3339 also allows
// the year 0000, which no database date column holds: a filter on it would fail in the store
// instead of being refused as a bad request.
const fullDate = fullFormats.date as {
  validate: (value: string) => boolean; compare: (a: string, b: string) => number | undefined };
const dateFormat = {
  ...fullDate,
  type: 'string' as const,
  validate: (value: string) => !value.startsWith('0000') && fullDate.validate(value),
};

function createAjv(coerceTypes: Options['coerceTypes']) {
  const ajv = new Ajv({ ...COMMON_OPTIONS, coerceTypes });
  addFormats.default(ajv);
  ajv.addFormat('date', dateFormat);
  return ajv;
}

// A function compiled on its first call instead of when the server starts: the server has some
// hundreds of routes, most of which a process never serves, and their compiled validators and
// serializers held tens of megabytes and took half a second of the start. The compiled
// function's `errors` (Ajv's, which Fastify reads after a failed validation) show through.
function compiledOnFirstCall<Args extends unknown[], Result>(
  compile: () => (...args: Args) => Result,
): ((...args: Args) => Result) & { readonly errors: ErrorObject[] | null } {
  let compiled: ((...args: Args) => Result) | null = null;
  const run = (...args: Args) => {
    compiled ??= compile();
    return compiled(...args);
  };
  Object.defineProperty(run, 'errors', {
    get: () => (compiled as { errors?: unknown } | null)?.errors ?? null,
  });
  return run as typeof run & { readonly errors: ErrorObject[] | null };
}

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  let ajvs: { strict: Ajv; coercing: Ajv } | null = null;
  return ({ schema, httpPart }) => compiledOnFirstCall(() => {
    ajvs ??= { strict: createAjv(false), coercing: createAjv('array') };
    const ajv = httpPart === 'body' ? ajvs.strict : ajvs.coercing;
    return ajv.compile(schema as object);
  });
}

type SerializerBuilder = (externalSchemas: unknown, options: unknown) =>
  (routeSchema: unknown) => (data: unknown) => string;

// Fastify's own response serializers (fast-json-stringify), each compiled on its first use.
export function lazySerializerBuilder(externalSchemas: unknown, options: unknown) {
  const build = (SerializerSelector as unknown as () => SerializerBuilder)();
  let compile: ReturnType<SerializerBuilder> | null = null;
  return (routeSchema: unknown) => compiledOnFirstCall((): (data: unknown) => string => {
    compile ??= build(externalSchemas, options);
    return compile(routeSchema);
  });
}

let rowAjv: Ajv | undefined;

// A field of a value that failed its schema, as `path` (a JSON pointer such as
// `/managers/0/email`, '' for the value itself) and what is wrong with it.
export type FieldError = { path: string; message: string };

// Checks values against a request body's schema as the API does, reporting every error instead
// of the first: for records read from a file (counterparty imports, the dashboard's invoice
// upload), where each cell gets its own message. The same schema stays the one implementation
// of each field's rule.
export function compileRecordValidator<T>(schema: object) {
  const validate = compiledOnFirstCall(() => {
    rowAjv ??= (() => {
      const ajv = new Ajv({ ...COMMON_OPTIONS, allErrors: true, coerceTypes: false });
      addFormats.default(ajv);
      ajv.addFormat('date', dateFormat);
      return ajv;
    })();
    return rowAjv.compile(schema);
  });
  return (value: unknown): { ok: true; value: T } | { ok: false; errors: FieldError[] } => {
    if (validate(value)) return { ok: true, value: value as T };
    const errors = (validate.errors ?? []).map((error) => {
      const missing = error.keyword === 'required'
        ? `/${String((error.params as { missingProperty?: unknown }).missingProperty)}` : '';
      return { path: `${error.instancePath}${missing}`,
        message: error.keyword === 'required' ? 'is required' : error.message ?? 'is invalid' };
    });
    // A field of a union (text or null) fails each branch: its first error says what is wrong.
    const seen = new Set<string>();
    return { ok: false, errors: errors.filter((error) =>
      !seen.has(error.path) && seen.add(error.path) !== undefined) };
  };
}

let itemAjv: Ajv | null = null;

// Checks a value against a request part's schema exactly as a request is checked (strictly for a
// body, coercing nothing), answering the 400 message that request would get, or null when it
// passes. For the documents of a bulk: each is checked on its own, so a bad one is refused with
// its single request's message and the others go on.
export function createPartChecker(schema: object, part: 'body' | 'headers') {
  const validate = compiledOnFirstCall(() => {
    itemAjv ??= createAjv(false);
    return itemAjv.compile(schema);
  });
  return (value: unknown): string | null => (validate(value) ? null
    : validationMessage(validate.errors as never, part));
}

// A body checked against a schema outside a route, as a route checks it, with the message a
// route's 400 INVALID_REQUEST would carry: a stored draft checked against its issuance's body
// (src/areas/drafts/). Null when the value passes. The value is not changed.
export function createBodyChecker(schema: object): (value: unknown) => string | null {
  const check = createPartChecker(schema, 'body');
  return (value) => check(structuredClone(value));
}
