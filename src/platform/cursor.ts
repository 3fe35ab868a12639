import { ApiError } from './errors.ts';

// Opaque page cursors: a short tuple of the last result's position, JSON in base64url. Clients
// pass them back unchanged; anything this service did not write is 400 INVALID_REQUEST.

export function encodeCursor(position: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

export function invalidCursor(): ApiError {
  return new ApiError('INVALID_REQUEST',
    'query.cursor is not a cursor returned by this operation.');
}

// The tuple of a cursor with `length` members; the caller checks each member's type and range.
export function decodeCursorTuple(cursor: string, length: number): unknown[] {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(value) || value.length !== length) throw invalidCursor();
  return value;
}
