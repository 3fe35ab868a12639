import { Ajv, type Options } from 'ajv';
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
export function compiledOnFirstCall<Args extends unknown[], Result>(
  compile: () => (...args: Args) => Result,
): (...args: Args) => Result {
  let compiled: ((...args: Args) => Result) | null = null;
  const run = (...args: Args) => {
    compiled ??= compile();
    return compiled(...args);
  };
  Object.defineProperty(run, 'errors', {
    get: () => (compiled as { errors?: unknown } | null)?.errors ?? null,
  });
  return run;
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

let itemAjv: Ajv | null = null;

// Checks a value against a request part's schema exactly as a request is checked (strictly for a
// body, coercing nothing), answering the 400 message that request would get, or null when it
// passes. For the documents of a bulk: each is checked on its own, so a bad one is refused with
// its single request's message and the others go on.
export function createPartChecker(schema: object, part: 'body' | 'headers') {
  itemAjv ??= createAjv(false);
  const validate = itemAjv.compile(schema);
  return (value: unknown): string | null => (validate(value) ? null
    : validationMessage(validate.errors as never, part));
}
