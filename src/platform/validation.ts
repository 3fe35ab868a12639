import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';

// Request validation. JSON bodies are validated strictly: a number where a string belongs is a
// 400, never silently converted. Path, query and headers arrive as strings, so those parts are
// coerced to the declared types.
const COMMON_OPTIONS: Options = {
  allErrors: false,
  removeAdditional: false,
  useDefaults: true,
  strict: false,
};

function createAjv(coerceTypes: Options['coerceTypes']) {
  const ajv = new Ajv({ ...COMMON_OPTIONS, coerceTypes });
  addFormats.default(ajv);
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
