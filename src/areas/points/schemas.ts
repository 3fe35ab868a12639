import { Type, type Static } from '@fastify/type-provider-typebox';
import { pageQueryFields } from '../../platform/paging.ts';
import { openEnum } from '../../platform/open-enum.ts';
import { DEFAULT_PRICES, type PriceRow } from '../../platform/operations.ts';
import { LEDGER_KINDS, RESERVATION_STATUSES } from '../../platform/points/ledger-reads.ts';

// The request and response schemas of these routes: one TypeBox schema drives validation,
// serialization, the types and the OpenAPI document.

export const PointBalance = Type.Object(
  {
    balance: Type.Integer({ description: 'Posted points of the calling key\'s environment.' }),
    reserved: Type.Integer({ description: 'Points held by requests in progress.' }),
    available: Type.Integer({ description: 'balance − reserved: what the next call can use.' }),
  },
  {
    $id: 'PointBalance',
    title: 'PointBalance',
    description: 'The point balance of the calling key\'s environment.',
    additionalProperties: false,
    examples: [{ balance: 1_000_000, reserved: 90, available: 999_910 }],
  },
);
export type PointBalance = Static<typeof PointBalance>;

const PRICE_ROWS = Object.keys(DEFAULT_PRICES) as PriceRow[];

// The API spells the ledger's kinds and reservation statuses in capitals, as every status of
// the API is (docs/api-conventions.md); the ledger's own rows keep their lowercase names.
const upper = <T extends string>(values: readonly T[]) =>
  values.map((value) => value.toUpperCase() as Uppercase<T>);
const LEDGER_KIND_NAMES = upper(LEDGER_KINDS);
const RESERVATION_STATUS_NAMES = upper(RESERVATION_STATUSES);

export const LedgerQuery = Type.Object(
  {
    kind: Type.Optional(Type.Enum(LEDGER_KIND_NAMES, {
      description: 'Only entries of this kind: `GRANT` (points added by the operator or a ' +
        'top-up), `CAPTURE` (a reservation settled), `CHARGE` (debited with its work) or ' +
        '`REFUND`.' })),
    operation: Type.Optional(Type.Enum(PRICE_ROWS, {
      description: 'Only entries charging or refunding this price row (docs/points.md).' })),
    createdDateFrom: Type.Optional(Type.String({ format: 'date',
      description: 'Only entries made on or after this date (Asia/Seoul).' })),
    createdDateTo: Type.Optional(Type.String({ format: 'date',
      description: 'Only entries made on or before this date (Asia/Seoul).' })),
    ...pageQueryFields('entries'),
  },
  { additionalProperties: false },
);

const NullableString = (description: string) =>
  Type.Union([Type.String(), Type.Null()], { description });

const LedgerReservation = Type.Object(
  {
    id: Type.String({ description: 'The reservation (`rsv_…`).' }),
    status: openEnum(RESERVATION_STATUS_NAMES, 'Where the reservation stands.'),
    reserved: Type.Integer({ description: 'Points the reservation held: the worst case the ' +
      'request was priced at.' }),
    captured: Type.Union([Type.Integer(), Type.Null()], { description: 'Points taken of it; ' +
      'the rest went back to the available balance. Null while it is open, released or ' +
      'expired.' }),
    createdAt: Type.String({ format: 'date-time', description: 'When it was reserved.' }),
    settledAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()],
      { description: 'When it was captured, released or expired; null while open.' }),
  },
  { title: 'LedgerReservation', description: 'The reservation a capture settled.',
    additionalProperties: false },
);

const LedgerEntry = Type.Object(
  {
    id: Type.String({ description: 'The entry (`led_…`).' }),
    kind: openEnum(LEDGER_KIND_NAMES, 'What moved the points.'),
    points: Type.Integer({ description: 'Signed: grants and refunds are positive, captures ' +
      'and charges negative.' }),
    balanceAfter: Type.Integer({ description: 'The posted balance right after the entry.' }),
    operation: NullableString('The price row charged or refunded (docs/points.md); null for ' +
      'grants.'),
    requestId: NullableString('The `Trace-Id` of the request that made the charge; null for ' +
      'grants, refunds and charges made by background work.'),
    documentId: NullableString('The document a charge or refund is for (a tax invoice\'s or ' +
      'cash receipt\'s `issuanceKey`) when it is for exactly one; null otherwise.'),
    reservation: Type.Union([LedgerReservation, Type.Null()], { description: 'For a ' +
      'capture, the reservation it settled: what was held and what was taken. Null for other ' +
      'kinds.' }),
    memo: NullableString('The operator\'s note of a grant, or why a refund was paid.'),
    createdAt: Type.String({ format: 'date-time', description: 'When the entry was made.' }),
  },
  { $id: 'LedgerEntry', title: 'LedgerEntry', description: 'One movement of the posted balance.',
    additionalProperties: false },
);

export const LedgerPage = Type.Object(
  {
    ledgerEntries: Type.Array(LedgerEntry, { description: 'Entries, newest first.' }),
    hasMore: Type.Boolean({ description: 'True when another page follows.' }),
    nextCursor: NullableString('Pass as `cursor` for the next page; null on the last page.'),
  },
  {
    $id: 'LedgerPage',
    title: 'LedgerPage',
    description: 'A page of the points ledger of the calling key\'s environment.',
    additionalProperties: false,
    examples: [{
      ledgerEntries: [{
        id: 'led_Yq3EXAMPLE0pX2aVb7nTQw', kind: 'CAPTURE', points: -100, balanceAfter: 999_900,
        operation: 'taxInvoices.issue', requestId: '4bf92f3577b34da6a3ce929d0e0e4736',
        documentId: null,
        reservation: { id: 'rsv_Hc2EXAMPLEw9Lk1mP0sQzA', status: 'CAPTURED', reserved: 100,
          captured: 100, createdAt: '2026-11-27T04:12:09.120Z',
          settledAt: '2026-11-27T04:12:09.180Z' },
        memo: null, createdAt: '2026-11-27T04:12:09.180Z',
      }],
      hasMore: false,
      nextCursor: null,
    }],
  },
);
export type LedgerPage = Static<typeof LedgerPage>;
