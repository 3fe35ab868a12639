import { Type } from '@fastify/type-provider-typebox';
import { HasMore, NextCursor, pageQueryFields } from '../../platform/paging.ts';

// `state` was this area's name for `status` (docs/api-conventions.md).
const STATE_DEPRECATED = 'Deprecated: the same value as `status`, kept for existing clients.';

// The request and response schemas of the connection routes (docs/connections.md).

const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description: string) =>
  Type.Union([schema, Type.Null()], { description });

const ConnectionKind = Type.Union([Type.Literal('HOMETAX'), Type.Literal('BANK_ACCOUNT')],
  { description: '`HOMETAX`: the tax authority\'s web portal; `BANK_ACCOUNT`: a bank account.' });

export const ConnectionIdParams = Type.Object(
  { connectionId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$',
    description: 'The connection id, e.g. `con_…`.' }) },
  { additionalProperties: false },
);

export const ConnectionListQuery = Type.Object(
  { kind: Type.Optional(ConnectionKind), ...pageQueryFields('connections', 100) },
  { additionalProperties: false },
);

export const ConnectionUrlQuery = Type.Object(
  { kind: ConnectionKind },
  { additionalProperties: false },
);

const CONNECTION_EXAMPLE = {
  id: 'con_3sUe0nB2m9K1aVtQx7YpLw', kind: 'HOMETAX', method: 'PASSWORD',
  businessRegistrationNumber: '1234567891', bankCode: null, accountNumber: null,
  displayName: '주식회사 이택스', state: 'CONNECTED', status: 'CONNECTED', failure: null,
  connectedAt: '2026-11-20T01:02:03.000Z', lastSyncedAt: '2026-11-20T01:05:00.000Z',
  createdAt: '2026-11-20T01:02:03.000Z',
};

const Connection = Type.Object(
  {
    id: Type.String({ description: 'The connection id.' }),
    kind: ConnectionKind,
    method: Type.Union([Type.Literal('PASSWORD'), Type.Literal('CERTIFICATE')], {
      description: 'How etax logs in: `PASSWORD` (user id and password) or `CERTIFICATE` (the ' +
        'joint certificate of an issuer of the account; Hometax only).' }),
    businessRegistrationNumber: Nullable(Type.String(), 'HOMETAX: the connected business.'),
    bankCode: Nullable(Type.String(), 'BANK_ACCOUNT: the bank code.'),
    accountNumber: Nullable(Type.String(), 'BANK_ACCOUNT: the account number, all but its ' +
      'last four digits masked.'),
    displayName: Nullable(Type.String(), 'The business or holder name the outside system ' +
      'answered the login with.'),
    state: Type.Union([Type.Literal('CONNECTED'), Type.Literal('FAILED'), Type.Literal('EXPIRED')],
      { deprecated: true, description: STATE_DEPRECATED }),
    status: Type.Union([Type.Literal('CONNECTED'), Type.Literal('FAILED'), Type.Literal('EXPIRED')],
      { description: '`CONNECTED`; `FAILED` when the last login or sync failed (see ' +
        '`failure`); `EXPIRED` when the outside system no longer accepts the credentials.' }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()], { description: 'Why the connection is ' +
      'FAILED or EXPIRED; null when CONNECTED.' }),
    connectedAt: Nullable(Timestamp('When the credentials were last verified.'),
      'When the credentials were last verified.'),
    lastSyncedAt: Nullable(Timestamp('The last sync that worked.'),
      'The last collection or sync that worked; null before the first.'),
    createdAt: Timestamp('When the connection was first made.'),
  },
  { title: 'Connection', description: 'A connection to an outside system. Its credentials are ' +
    'never returned.', additionalProperties: false, examples: [CONNECTION_EXAMPLE] },
);

export const ConnectionList = Type.Object(
  { items: Type.Array(Connection), nextCursor: NextCursor, hasMore: HasMore },
  { title: 'ConnectionList', description: 'A page of the connections of the key\'s account ' +
    'and environment, oldest first.', additionalProperties: false,
  examples: [{ items: [CONNECTION_EXAMPLE], nextCursor: null, hasMore: false }] },
);

export const ConnectionUrl = Type.Object(
  {
    url: Type.String({ description: 'One-time page for the business owner; valid 10 minutes.' }),
    expiresAt: Timestamp('When the link stops working.'),
  },
  { title: 'ConnectionUrl', description: 'A one-time connection page.',
    additionalProperties: false, examples: [{
      url: 'https://etax.example.com/connections/Zm9vYmFyEXAMPLEdG9rZW4tdmFsdWUtMzJiYWJjZGVm',
      expiresAt: '2026-11-20T01:12:03.000Z' }] },
);
