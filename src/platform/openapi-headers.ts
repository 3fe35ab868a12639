// Adds the response headers every route sends to the generated OpenAPI document, so clients and
// SDK generators see them: Trace-Id on every response, the rate-limit headers on /v1 responses
// and Retry-After on 429.

type HeaderObject = { description: string; schema: { type: string; minimum?: number } };
type ResponseObject = { headers?: Record<string, unknown> };
type OperationObject = { responses?: Record<string, ResponseObject> };
type OpenApiObject = {
  paths?: Record<string, Record<string, OperationObject>>;
  components?: { headers?: Record<string, HeaderObject> };
};

const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  TraceId: {
    description: 'Request trace id; equals the error body\'s traceId.',
    schema: { type: 'string' },
  },
  RateLimitPolicy: {
    description: 'The operation\'s policy: `"<operation>";q=<calls>;w=<window seconds>`.',
    schema: { type: 'string' },
  },
  RateLimit: {
    description: 'Remaining calls and seconds to reset: `"<operation>";r=<remaining>;t=<seconds>`.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Whole seconds to wait before retrying (at least 1).',
    schema: { type: 'integer', minimum: 1 },
  },
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

export function addResponseHeaders<T>(document: T): T {
  const openapi = document as OpenApiObject;
  openapi.components = { ...openapi.components, headers: RESPONSE_HEADERS };
  for (const [path, operations] of Object.entries(openapi.paths ?? {})) {
    const rateLimited = path.startsWith('/v1/');
    for (const operation of Object.values(operations)) {
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        const headers: Record<string, unknown> = {
          ...response.headers,
          'Trace-Id': ref('TraceId'),
        };
        if (rateLimited && status !== '401') {
          headers['RateLimit-Policy'] = ref('RateLimitPolicy');
          headers.RateLimit = ref('RateLimit');
        }
        if (status === '429') headers['Retry-After'] = ref('RetryAfter');
        response.headers = headers;
      }
    }
  }
  return document;
}
