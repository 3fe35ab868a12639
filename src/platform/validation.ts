import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
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

export function createValidatorCompiler(): FastifySchemaCompiler<unknown> {
  const strict = createAjv(false);
  const coercing = createAjv('array');
  return ({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return ajv.compile(schema as object);
  };
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
