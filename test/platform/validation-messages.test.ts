// The messages of requests that break their schema (docs/errors.md § Validation messages name
// the field), built from the errors of the validator the server uses.
import type { FastifySchemaValidationError } from 'fastify';
import { Type, type TSchema } from 'typebox';
import { describe, expect, it } from 'vitest';
import { createValidatorCompiler } from '../../src/platform/validation.ts';
import { validationMessage } from '../../src/platform/validation-messages.ts';

const compile = createValidatorCompiler();

function messageFor(schema: TSchema, part: 'body' | 'querystring' | 'params' | 'headers',
  value: unknown): string {
  const validate = compile({ schema, httpPart: part, url: '/', method: 'POST' }) as
    ((data: unknown) => boolean) & { errors?: FastifySchemaValidationError[] };
  expect(validate(value), 'the value must break the schema').toBe(false);
  return validationMessage(validate.errors ?? [], part);
}

const Accounts = Type.Object({
  accounts: Type.Array(Type.Object(
    { bankCode: Type.String(), accountNumber: Type.String() },
    { additionalProperties: false },
  ), { minItems: 1 }),
}, { additionalProperties: false });

describe('a validation message', () => {
  it('names an array position in brackets and a property after a dot', () => {
    expect(messageFor(Accounts, 'body', { accounts: [{ bankCode: 4, accountNumber: '1' }] }))
      .toBe('body.accounts[0].bankCode must be string.');
    expect(messageFor(Accounts, 'body', { accounts: [{ bankCode: '004' }] }))
      .toBe('body.accounts[0].accountNumber is required.');
    expect(messageFor(Accounts, 'body', {})).toBe('body.accounts is required.');
  });

  it('names the query part `query`', () => {
    const Query = Type.Object({ limit: Type.Integer({ minimum: 1 }) });
    expect(messageFor(Query, 'querystring', { limit: '0' })).toBe('query.limit must be >= 1.');
  });

  it('names the allowed values of a union of literals', () => {
    const Body = Type.Object({
      purpose: Type.Union([Type.Literal('RECEIPT'), Type.Literal('CLAIM')]),
    });
    expect(messageFor(Body, 'body', { purpose: 'OTHER' }))
      .toBe('body.purpose must be one of RECEIPT, CLAIM.');
  });

  it('names the allowed values of an enum, and null when the field may be null', () => {
    const Body = Type.Object({
      status: Type.Enum(['pending', 'failed']),
      kind: Type.Union([Type.Enum(['A', 'B']), Type.Null()]),
    });
    expect(messageFor(Body, 'body', { status: 'x', kind: 'A' }))
      .toBe('body.status must be one of pending, failed.');
    expect(messageFor(Body, 'body', { status: 'failed', kind: 'C' }))
      .toBe('body.kind must be one of A, B, null.');
  });

  it('names a field the operation does not take', () => {
    expect(messageFor(Accounts, 'body', { accounts: [{ bankCode: '004', accountNumber: '1',
      extra: 1 }] })).toBe('body.accounts[0].extra is not a field of this operation.');
  });

  it('keeps the validator\'s wording for other problems, after the field', () => {
    expect(messageFor(Accounts, 'body', { accounts: [] }))
      .toBe('body.accounts must NOT have fewer than 1 items.');
    const Nullable = Type.Object({ name: Type.Union([Type.String({ maxLength: 2 }),
      Type.Null()]) });
    expect(messageFor(Nullable, 'body', { name: 'abc' }))
      .toBe('body.name must NOT have more than 2 characters.');
  });
});
