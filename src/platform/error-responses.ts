import { Type, type TSchema } from 'typebox';
import { ERRORS, type ErrorCode } from './errors.ts';

// The error responses a route declares: one schema per status whose `code` lists exactly the codes
// the operation answers with that status, so a typed client can switch on them. The same schemas
// serialize the errors and make the OpenAPI document.

// The pseudo-code for a failed authentication: 401 with no body, so it has no row in ERRORS.
export const UNAUTHENTICATED = 'UNAUTHENTICATED';

// What the platform answers for every /v1 operation around its own work: a failed authentication,
// the rate limit, a bug, an unreachable database or a server that is shutting down.
export const PLATFORM_ERRORS = [UNAUTHENTICATED, 'RATE_LIMITED', 'INTERNAL_SERVER_ERROR',
  'SERVICE_UNAVAILABLE'] as const;

// What the platform answers for every operation whose method carries a body (POST, PUT, PATCH and
// DELETE: a body sent with any of them is read, whether or not the operation takes one):
// unreadable JSON, a body over the limit, a media type other than JSON.
export const BODY_ERRORS = ['INVALID_REQUEST', 'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE'] as const;

// Whether the rate limit has counted a request by the time it is answered with a code
// (docs/errors.md § Order of checks), and so whether the answer carries the RateLimit headers:
// 'never' for what is refused before it (the request's form and schema), 'always' for what the
// operation answers after it, 'sometimes' for what happens at either point.
export type Counted = 'never' | 'always' | 'sometimes';

const COUNTED_BY_DEFAULT: Partial<Record<ErrorCode, Counted>> = {
  INVALID_REQUEST: 'never',
  PAYLOAD_TOO_LARGE: 'never',
  UNSUPPORTED_MEDIA_TYPE: 'never',
  // Checked right after authentication (src/platform/plans.ts).
  PLAN_UPGRADE_REQUIRED: 'never',
  INTERNAL_SERVER_ERROR: 'sometimes',
  SERVICE_UNAVAILABLE: 'sometimes',
};

// A code answered at another point than usual, e.g. a business registration number checked
// before the rate limit.
export type CountedCode = { code: ErrorCode; counted: Counted };

// 400 INVALID_REQUEST of an operation that checks its input itself as well, after the rate limit
// counted the request (a cursor it did not write, a rule between fields, a reused reference id):
// those answers carry the RateLimit headers, validation's do not.
export const INPUT_CHECKED_AFTER_COUNTING: CountedCode =
  { code: 'INVALID_REQUEST', counted: 'sometimes' };

export type DeclaredError = ErrorCode | typeof UNAUTHENTICATED | CountedCode;

// Where the error schema says whether its responses were counted; src/platform/openapi-headers.ts
// turns it into the RateLimit header declarations and removes it from the document.
export const COUNTED_KEYWORD = 'x-counted';

const combine = (a: Counted | undefined, b: Counted): Counted =>
  (a === undefined || a === b ? b : 'sometimes');

// Routes declare the same groups of codes again and again (every /v1 operation has the
// platform's): each group's schema is made once and shared, which no consumer changes (the
// OpenAPI document is made from a copy).
const errorBodies = new Map<string, TSchema>();

function errorBody(codes: ErrorCode[], counted: Counted): TSchema {
  const key = `${counted} ${codes.join(' ')}`;
  let body = errorBodies.get(key);
  if (body === undefined) {
    body = makeErrorBody(codes, counted);
    errorBodies.set(key, body);
  }
  return body;
}

function makeErrorBody(codes: ErrorCode[], counted: Counted): TSchema {
  const list = codes.map((code) => `\`${code}\`: ${ERRORS[code].message}`).join(' ');
  return Type.Object(
    {
      code: Type.Unsafe<ErrorCode>({
        type: 'string',
        enum: codes,
        description: 'Error type identifier (docs/errors.md): one of the codes this operation ' +
          'answers with this status.',
      }),
      message: Type.String({ description: 'Human-readable description: in Korean when the ' +
        'request\'s Accept-Language prefers Korean (`ko`), in English otherwise.' }),
      traceId: Type.String({ description: 'Request trace id; equals the Trace-Id header.' }),
    },
    { additionalProperties: false, description: `Error. ${list}`, [COUNTED_KEYWORD]: counted },
  );
}

// Response schemas for the errors a route can return, grouped by status.
export function errorResponses(...declared: DeclaredError[]): Record<number, unknown> {
  const responses: Record<number, unknown> = {};
  const countedByCode = new Map<ErrorCode, Counted>();
  for (const item of declared) {
    if (item === UNAUTHENTICATED) {
      responses[401] = Type.Null({ description: 'Authentication failed. The body is empty.' });
      continue;
    }
    const { code, counted } = typeof item === 'string'
      ? { code: item, counted: COUNTED_BY_DEFAULT[item] ?? 'always' }
      : item;
    countedByCode.set(code, combine(countedByCode.get(code), counted));
  }
  const byStatus = new Map<number, { codes: ErrorCode[]; counted?: Counted }>();
  for (const [code, counted] of countedByCode) {
    const group = byStatus.get(ERRORS[code].status) ?? { codes: [] };
    group.codes.push(code);
    group.counted = combine(group.counted, counted);
    byStatus.set(ERRORS[code].status, group);
  }
  for (const [status, { codes, counted }] of byStatus) {
    responses[status] = errorBody(codes, counted ?? 'always');
  }
  return responses;
}

// The errors of an operation: the platform's (authentication, rate limit, server errors) and its
// own; of one with a path parameter or a query, which can be INVALID_REQUEST; and of one whose
// method carries a body, with what a body can be refused for.
export const operationErrors = (...codes: DeclaredError[]) =>
  errorResponses(...PLATFORM_ERRORS, ...codes);
export const inputErrors = (...codes: DeclaredError[]) =>
  operationErrors('INVALID_REQUEST', ...codes);
export const bodyErrors = (...codes: DeclaredError[]) => operationErrors(...BODY_ERRORS, ...codes);

// The codes a declared error response lists: what the route contract checks.
export function declaredCodes(response: unknown): string[] {
  const schema = response as { properties?: { code?: { enum?: unknown[] } } } | undefined;
  return (schema?.properties?.code?.enum ?? []).map(String);
}
