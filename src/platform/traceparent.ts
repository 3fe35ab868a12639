// The trace id of a W3C `traceparent` header (https://www.w3.org/TR/trace-context/), so a
// request's log lines can name the caller's trace beside etax's own Trace-Id. Never used as
// etax's trace id: a header is not trusted to be unique. Null for a header that is absent or
// not version 00's form, and for the all-zero id the standard forbids.
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;
const INVALID_TRACE_ID = '0'.repeat(32);

export function traceIdOfTraceparent(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string' || header.length !== 55) return null;
  const traceId = TRACEPARENT.exec(header)?.[1];
  if (traceId === undefined || traceId === INVALID_TRACE_ID) return null;
  return traceId;
}
