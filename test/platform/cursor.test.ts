// Page cursors (docs/operations.md § Page cursors): the position sealed under a key derived from
// the encryption key, bound to the list and the caller's account and environment. Their text
// shows nothing, not even the number of digits of the position; they open in every process with
// the same key and after a rotation while the old key is configured; anything else is 400.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealingKey, createSealingKeyring } from '../../src/domain/sealed-box.ts';
import {
  BIGINT_COLUMN_MAX,
  createPageCursors,
  cursorDate,
  cursorInteger,
  sequenceCursors,
} from '../../src/platform/cursor.ts';

const KEY = randomBytes(32);
const OTHER_KEY = randomBytes(32);
const A = { accountId: 'acc_a', environment: 'test' as const };
const B = { accountId: 'acc_b', environment: 'test' as const };
const SEQUENCE = [cursorInteger(0, BIGINT_COLUMN_MAX)] as const;
const at = (scope: typeof A, list = 'taxInvoices.list') => ({ list, scope });

function refusal(open: () => unknown) {
  try {
    open();
  } catch (error) {
    return error;
  }
  throw new Error('the cursor opened');
}

const isRefused = (open: () => unknown) => expect(refusal(open)).toMatchObject({
  code: 'INVALID_REQUEST', status: 400,
  message: 'query.cursor is not a cursor this operation returned to this account and ' +
    'environment.' });

describe('a page cursor', () => {
  const cursors = createPageCursors(createSealingKey(KEY));

  it('opens for its list and caller with the position it holds', () => {
    const cursor = cursors.encode(at(A), [41_523]);
    expect(cursors.decode(at(A), cursor, [...SEQUENCE])).toEqual([41_523]);
    const position = ['2026-11-27', 7];
    expect(cursors.decode(at(A, 'bank'), cursors.encode(at(A, 'bank'), position),
      [cursorDate, cursorInteger(0, 10)])).toEqual(position);
  });

  it('shows no position, id or count, and has one length whatever the position', () => {
    const small = cursors.encode(at(A), [1]);
    const large = cursors.encode(at(A), [9_007_199_254_740_991]);
    for (const cursor of [small, large]) {
      expect(cursor).toMatch(/^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/);
      expect(cursor).not.toContain(Buffer.from('[1]').toString('base64url'));
      expect(cursor).not.toContain('9007199254740991');
      expect(cursor).not.toContain('acc_a');
      const bytes = Buffer.concat(cursor.split('.').slice(1)
        .map((part) => Buffer.from(part, 'base64url'))).toString('latin1');
      expect(bytes).not.toContain('[1]');
      expect(bytes).not.toContain('9007199254740991');
    }
    expect(small.length).toBe(large.length);
    // The same position sealed twice gives two different cursors.
    expect(cursors.encode(at(A), [1])).not.toBe(small);
  });

  it('is refused for another account, environment or list', () => {
    const cursor = cursors.encode(at(A), [5]);
    isRefused(() => cursors.decode(at(B), cursor, [...SEQUENCE]));
    isRefused(() => cursors.decode(at({ ...A, environment: 'live' } as never), cursor,
      [...SEQUENCE]));
    isRefused(() => cursors.decode(at(A, 'cashReceipts.list'), cursor, [...SEQUENCE]));
    const sequences = sequenceCursors(cursors, 'documents.list');
    isRefused(() => sequences.decode(B, sequences.encode(A, 5)));
    expect(sequences.decode(A, sequences.encode(A, 5))).toBe(5);
    expect(sequences.decode(A, undefined)).toBeUndefined();
  });

  it('is refused when tampered with, cut, extended or written in clear', () => {
    const cursor = cursors.encode(at(A), [5]);
    const [version, iv, tag, body] = cursor.split('.') as [string, string, string, string];
    const flip = (text: string, index: number) => text.slice(0, index) +
      (text[index] === 'A' ? 'B' : 'A') + text.slice(index + 1);
    for (const tampered of [
      [version, flip(iv, 3), tag, body].join('.'),
      [version, iv, flip(tag, 5), body].join('.'),
      [version, iv, tag, flip(body, 10)].join('.'),
      // A tag cut to 4 bytes, which GCM would otherwise accept.
      [version, iv, Buffer.from(tag, 'base64url').subarray(0, 4).toString('base64url'), body]
        .join('.'),
      `${cursor}.AAAA`,
      cursor.slice(0, -2),
      ['v2', iv, tag, body].join('.'),
      Buffer.from('[5]').toString('base64url'),
      '', '....', 'v1...', `${cursor} `, 'x'.repeat(201),
    ]) {
      isRefused(() => cursors.decode(at(A), tampered, [...SEQUENCE]));
    }
  });

  it('opens in another process with the same key, and after a rotation while the old key is kept',
    () => {
      const cursor = cursors.encode(at(A), [77]);
      const sameKey = createPageCursors(createSealingKey(Buffer.from(KEY)));
      expect(sameKey.decode(at(A), cursor, [...SEQUENCE])).toEqual([77]);
      const rotated = createPageCursors(createSealingKeyring(OTHER_KEY, [KEY]));
      expect(rotated.decode(at(A), cursor, [...SEQUENCE])).toEqual([77]);
      isRefused(() => createPageCursors(createSealingKey(OTHER_KEY))
        .decode(at(A), cursor, [...SEQUENCE]));
    });

  it('is sealed with a key of its own, not the key that seals secrets', () => {
    const secrets = createSealingKey(KEY);
    const cursor = cursors.encode(at(A), [1]);
    expect(() => secrets.open(cursor, ['page cursor', 'taxInvoices.list', 'acc_a', 'test']
      .join('\u0000'))).toThrow();
  });

  it('refuses an opened position outside its columns\' range', () => {
    const cursor = cursors.encode(at(A), [-1]);
    isRefused(() => cursors.decode(at(A), cursor, [...SEQUENCE]));
    isRefused(() => cursors.decode(at(A), cursors.encode(at(A), [1, 2]), [...SEQUENCE]));
    isRefused(() => cursors.decode(at(A), cursors.encode(at(A), ['2026-02-30', 1]),
      [cursorDate, cursorInteger(0, 10)]));
  });
});
