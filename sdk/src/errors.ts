import type { paths } from './schema.js';

// An answer of the API that is not a success, with the error body's fields. Every error of
// etax has the body {code, message, traceId}; 401 has no body, so its code is UNAUTHORIZED.
export class EtaxError<Code extends string = string> extends Error {
  override readonly name = 'EtaxError';
  readonly status: number;
  readonly code: Code;
  readonly traceId: string | null;
  // Seconds to wait before the same request can succeed (429), when the server said.
  readonly retryAfterSeconds: number | null;

  constructor(init: { status: number; code: Code; message: string; traceId: string | null;
    retryAfterSeconds?: number | null }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.traceId = init.traceId;
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
  }

  static fromResponse(response: Response, body: unknown): EtaxError {
    const fields = typeof body === 'object' && body !== null
      ? body as { code?: unknown; message?: unknown; traceId?: unknown } : {};
    const traceId = typeof fields.traceId === 'string' ? fields.traceId
      : response.headers.get('trace-id');
    const code = typeof fields.code === 'string' ? fields.code
      : response.status === 401 ? 'UNAUTHORIZED' : `HTTP_${response.status}`;
    const message = typeof fields.message === 'string' ? fields.message
      : response.status === 401 ? 'The API key was refused.'
        : `The server answered ${response.status}.`;
    return new EtaxError({ status: response.status, code, message, traceId,
      retryAfterSeconds: retryAfterSeconds(response) });
  }
}

// Whole seconds of a Retry-After header in its delta-seconds form; null when absent or a date.
export function retryAfterSeconds(response: Response): number | null {
  const value = response.headers.get('retry-after');
  if (value === null || !/^\d{1,9}$/.test(value.trim())) return null;
  return Number(value.trim());
}

export function isEtaxError<Code extends string>(error: unknown, code?: Code):
  error is EtaxError<Code> {
  return error instanceof EtaxError && (code === undefined || error.code === code);
}

type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 429 | 500 |
  502 | 503 | 504;
type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type ResponsesOf<Path extends keyof paths, M extends Method> =
  paths[Path][M] extends { responses: infer Responses } ? Responses : never;
type CodeOf<Response> = Response extends { content: { 'application/json': { code: infer Code } } }
  ? Code : never;

// The codes one operation can answer, as the OpenAPI document lists them: a client can switch
// on them exhaustively. 401 adds UNAUTHORIZED (its answer has no body).
export type OperationErrorCode<Path extends keyof paths, M extends Method> = {
  [Status in keyof ResponsesOf<Path, M>]: Status extends ErrorStatus
    ? (Status extends 401 ? 'UNAUTHORIZED' : CodeOf<ResponsesOf<Path, M>[Status]>) : never;
}[keyof ResponsesOf<Path, M>] & string;
