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

// A body checked against a schema outside a route, as a route checks it, with the message a
// route's 400 INVALID_REQUEST would carry: a stored draft checked against its issuance's body
// (src/areas/drafts/). Null when the value passes. The value is not changed.
export function createBodyChecker(schema: object): (value: unknown) => string | null {
  const validate = createAjv(false).compile(schema);
  return (value) => {
    if (validate(structuredClone(value))) return null;
    return validationMessage(validate.errors ?? [], 'body');
  };
}
