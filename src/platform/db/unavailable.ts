// Whether an error means the database could not be reached, as opposed to a query that failed.
// Such a request is answered 503 SERVICE_UNAVAILABLE (the specification's internal communication
// failure), not 500: nothing about the request was wrong and a retry may succeed.

// Socket-level failures reaching or talking to the server.
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND',
  'EAI_AGAIN',
]);
// SQLSTATEs of a server that is going away or refusing connections: class 08 (connection
// exception) and these.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
// node-postgres reports a dropped connection or a pool that could not connect in time with
// plain Errors; their messages are its API.
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
];

function isUnavailableItself(error: Error & { code?: unknown }): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (NETWORK_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code)) return true;
  if (/^08[0-9A-Z]{3}$/.test(code)) return true;
  return UNAVAILABLE_MESSAGES.some((message) => error.message.startsWith(message));
}

// Drizzle wraps driver errors (DrizzleQueryError) with the original as `cause`.
const CAUSE_DEPTH_MAX = 5;

export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH_MAX && current instanceof Error; depth += 1) {
    if (isUnavailableItself(current)) return true;
    current = current.cause;
  }
  return false;
}

// A short reason for a log line or a message: the driver's code (ECONNREFUSED, 57P01) or, for
// node-postgres's plain Errors, its message. Neither ever holds the connection's password.
export function unavailableReason(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < CAUSE_DEPTH_MAX && current instanceof Error; depth += 1) {
    if (isUnavailableItself(current)) {
      const { code } = current as Error & { code?: unknown };
      return typeof code === 'string' && code !== '' ? code : current.message;
    }
    current = current.cause;
  }
  return error instanceof Error ? error.message : String(error);
}
