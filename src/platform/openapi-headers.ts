import { COUNTED_KEYWORD, type Counted } from './error-responses.ts';

// Declares the response headers of the OpenAPI document exactly where the server sends them:
// - Trace-Id on every response (src/platform/trace.ts);
// - WWW-Authenticate on 401 (src/platform/auth.ts);
// - RateLimit and RateLimit-Policy on an answer to a /v1 request the rate limit counted
//   (src/platform/ratelimit.ts): every success and 429, and the errors whose schema says so
//   (src/platform/error-responses.ts); never 401 or what validation refuses;
// - Retry-After on 429, and on the 503 of a server that is shutting down
//   (src/platform/shutdown.ts);
// - the headers a route declares itself (the PDF's Content-Disposition), which it always sends.

type HeaderObject = {
  description: string;
  required: boolean;
  schema: { type: string; minimum?: number };
};
type Reference = { $ref: string };
type MediaTypeObject = { schema?: Record<string, unknown> };
type ResponseObject = {
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
};
type OperationObject = { responses?: Record<string, ResponseObject> };
type OpenApiObject = {
  paths?: Record<string, Record<string, OperationObject>>;
  components?: { headers?: Record<string, HeaderObject> };
};

const WHEN_COUNTED = ' Sent when the rate limit counted the request, that is when it got past ' +
  'authentication and validation (docs/errors.md § Order of checks).';

const RESPONSE_HEADERS = {
  TraceId: {
    description: 'Request trace id; equals the error body\'s traceId.',
    required: true,
    schema: { type: 'string' },
  },
  WwwAuthenticate: {
    description: 'The authentication scheme: `Basic realm="etax"`.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: 'The operation\'s policy: `"<operation>";q=<calls>;w=<window seconds>`.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'Remaining calls and seconds to reset: `"<operation>";r=<remaining>;t=<seconds>`.',
    required: true,
    schema: { type: 'string' },
  },
  RateLimitPolicyWhenCounted: {
    description: 'The operation\'s policy: `"<operation>";q=<calls>;w=<window seconds>`.' +
      WHEN_COUNTED,
    required: false,
    schema: { type: 'string' },
  },
  RateLimitWhenCounted: {
    description: 'Remaining calls and seconds to reset: ' +
      '`"<operation>";r=<remaining>;t=<seconds>`.' + WHEN_COUNTED,
    required: false,
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Whole seconds to wait before retrying (at least 1).',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  RetryAfterWhenClosing: {
    description: 'Sent by a server that is shutting down, with `Connection: close`: whole ' +
      'seconds to wait before retrying on a new connection.',
    required: false,
    schema: { type: 'integer', minimum: 1 },
  },
} satisfies Record<string, HeaderObject>;

type HeaderName = keyof typeof RESPONSE_HEADERS;
const ref = (name: HeaderName): Reference => ({ $ref: `#/components/headers/${name}` });

// Reads and removes the error schema's word on whether its answers were counted; a success was
// always counted.
function takeCounted(status: string, response: ResponseObject): Counted {
  let counted: Counted | undefined;
  for (const media of Object.values(response.content ?? {})) {
    const value = media.schema?.[COUNTED_KEYWORD] as Counted | undefined;
    if (media.schema) delete media.schema[COUNTED_KEYWORD];
    counted ??= value;
  }
  if (status === '401') return 'never';
  return counted ?? 'always';
}

function rateLimitHeaders(counted: Counted): Record<string, Reference> {
  if (counted === 'never') return {};
  if (counted === 'always') {
    return { 'RateLimit-Policy': ref('RateLimitPolicy'), RateLimit: ref('RateLimit') };
  }
  return { 'RateLimit-Policy': ref('RateLimitPolicyWhenCounted'),
    RateLimit: ref('RateLimitWhenCounted') };
}

function headersOf(status: string, response: ResponseObject, rateLimited: boolean) {
  const counted = takeCounted(status, response);
  // What the route declares itself is sent on every such response.
  const own = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, header]) =>
    [name, '$ref' in header ? header : { ...header, required: true }]));
  return {
    'Trace-Id': ref('TraceId'),
    ...(status === '401' ? { 'WWW-Authenticate': ref('WwwAuthenticate') } : {}),
    ...(rateLimited ? rateLimitHeaders(counted) : {}),
    ...(status === '429' ? { 'Retry-After': ref('RetryAfter') } : {}),
    ...(status === '503' ? { 'Retry-After': ref('RetryAfterWhenClosing') } : {}),
    ...own,
  };
}

export function addResponseHeaders<T>(document: T): T {
  const openapi = document as OpenApiObject;
  openapi.components = { ...openapi.components, headers: RESPONSE_HEADERS };
  for (const [path, operations] of Object.entries(openapi.paths ?? {})) {
    const rateLimited = path.startsWith('/v1/');
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        response.headers = headersOf(status, response, rateLimited);
      }
    }
  }
  return document;
}
