// Service-Client-Reference-Id values. A tax invoice's value is never reusable, a cash
// receipt's or issued document's replays the same request: either way a new request needs a
// new value, and a retried one the value it was first sent with (docs/idempotency.md).

export const REFERENCE_ID_HEADER = 'service-client-reference-id';

// A new value: the prefix names what it is for in the client's own logs.
export function newReferenceId(prefix = 'etax'): string {
  if (!/^[A-Za-z0-9_-]{0,64}$/.test(prefix)) {
    throw new TypeError('prefix must be up to 64 letters, digits, "-" or "_".');
  }
  return `${prefix}-${crypto.randomUUID()}`;
}
