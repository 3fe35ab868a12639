import { PRINTED_TEXT_PATTERN, PRINTED_TEXT_RULE } from '../domain/text.ts';
import type { FastifySchemaValidationError } from 'fastify';

// The message of a 400 INVALID_REQUEST for a request that breaks its operation's schema
// (docs/errors.md § Validation messages name the field): the part of the request, the path to the
// field in the style the operations' own checks use (`body.accounts[0].bankCode`, `query.limit`),
// then the problem, naming the allowed values where there are few.

// Fastify's names of the request parts, as clients know them.
const PART_NAMES: Record<string, string> = {
  body: 'body',
  params: 'params',
  querystring: 'query',
  headers: 'headers',
};

type ValidationError = FastifySchemaValidationError & { schemaPath?: string };

// `/accounts/0/bankCode` → `.accounts[0].bankCode`, after the part name.
function fieldPath(part: string, instancePath: string): string {
  const segments = instancePath === '' ? [] : instancePath.slice(1).split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  return segments.reduce((path, segment) =>
    (/^\d+$/.test(segment) ? `${path}[${segment}]` : `${path}.${segment}`), part);
}

const listed = (values: unknown[]) => values.map((value) => String(value)).join(', ');

// A choice between fixed values (a union of literals, possibly nullable) fails with one error per
// branch, then one for the union: the values the branches allow, or null when a branch is not a
// fixed value.
function allowedValuesOfUnion(errors: ValidationError[]): unknown[] | null {
  const union = errors.find((error) => error.keyword === 'anyOf' &&
    error.instancePath === errors[0]!.instancePath);
  if (!union) return null;
  const values: unknown[] = [];
  for (const error of errors.slice(0, errors.indexOf(union))) {
    const params = error.params as { allowedValue?: unknown; allowedValues?: unknown[];
      type?: string };
    if (error.instancePath !== union.instancePath) return null;
    if (error.keyword === 'const') values.push(params.allowedValue);
    else if (error.keyword === 'enum') values.push(...(params.allowedValues ?? []));
    else if (error.keyword === 'type' && params.type === 'null') values.push(null);
    else return null;
  }
  return values;
}

function problem(error: ValidationError, errors: ValidationError[]): string {
  const params = error.params as { allowedValue?: unknown; allowedValues?: unknown[] };
  const unionValues = allowedValuesOfUnion(errors);
  if (unionValues) return `must be one of ${listed(unionValues)}`;
  if (error.keyword === 'enum') return `must be one of ${listed(params.allowedValues ?? [])}`;
  if (error.keyword === 'const') return `must be ${String(params.allowedValue)}`;
  if (error.keyword === 'pattern' &&
    (error.params as { pattern?: string }).pattern === PRINTED_TEXT_PATTERN) {
    return PRINTED_TEXT_RULE;
  }
  return error.message ?? 'is invalid';
}

export function validationMessage(errors: ValidationError[], part: string): string {
  const first = errors[0];
  if (!first) return 'The request is invalid.';
  const partName = PART_NAMES[part] ?? part;
  const field = fieldPath(partName, first.instancePath);
  const params = first.params as { missingProperty?: string; additionalProperty?: string };
  if (first.keyword === 'required' && params.missingProperty) {
    return `${field}.${params.missingProperty} is required.`;
  }
  if (first.keyword === 'additionalProperties' && params.additionalProperty) {
    return `${field}.${params.additionalProperty} is not a field of this operation.`;
  }
  return `${field} ${problem(first, errors)}.`;
}
