import { describe, expect, it } from 'vitest';
import { isDatabaseUnavailable } from '../../src/platform/db/unavailable.ts';

function errorWithCode(code: string, message = 'failed'): Error {
  return Object.assign(new Error(message), { code });
}

describe('telling an unreachable database from a failed query', () => {
  it.each([
    ['a refused connection', errorWithCode('ECONNREFUSED')],
    ['a connection exception (SQLSTATE class 08)', errorWithCode('08006')],
    ['a server shutting down', errorWithCode('57P01')],
    ['too many connections', errorWithCode('53300')],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a driver error wrapped by Drizzle',
      new Error('Failed query', { cause: errorWithCode('08001') })],
  ])('counts %s as unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', errorWithCode('23505')],
    ['a syntax error', errorWithCode('42601')],
    ['a plain bug', new TypeError('x is undefined')],
    ['a non-error', 'ECONNREFUSED'],
  ])('does not count %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
