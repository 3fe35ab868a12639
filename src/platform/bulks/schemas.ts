import { Type, type TSchema } from '@fastify/type-provider-typebox';
import { referenceIdHeaders } from '../idempotency/reference-id-header.ts';
import { HasMore, pageQueryFields } from '../paging.ts';
import { BULK_ITEMS_MAX } from './bulks.ts';

// The schemas of a bulk issuance's operations (docs/bulk-issuance.md), the same for every
// document area: `title` names the area's bulk (`TaxInvoiceBulk`), `states` are its documents'
// states and `document` the schema of one document's request body. The body schema checks only
// the shape of each item; what is inside (the document, its supplier key and reference id) is
// checked per item, so a bad document is refused alone with its single request's message.

export const BulkHeaders = referenceIdHeaders({ required: true });

export const BulkIdParams = Type.Object(
  { bulkId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
    description: 'The `bulkId` the bulk request answered, whole.' }) },
  { additionalProperties: false },
);

export const BulkListQuery = Type.Object(
  pageQueryFields('bulks'),
  { additionalProperties: false },
);

// Whether an item's own reference id is required, as its single request's header is, or
// optional.
export type ItemReferenceId = 'required' | 'optional';

export function bulkBody(what: string, itemReferenceId: ItemReferenceId) {
  // No control characters: a header cannot carry them, and the bulk keeps the value.
  const reference = Type.String({ pattern: '^[^\\u0000-\\u001F\\u007F]*$',
    description: `The ${what}'s own ` +
    '`Service-Client-Reference-Id`, with the rules of its single request' +
    (itemReferenceId === 'optional' ? ' (optional, as there)' : '') + '; unique within ' +
    'the bulk.', examples: ['order-2026-11-0001'] });
  const Item = Type.Object(
    {
      clientReferenceId: itemReferenceId === 'optional' ? Type.Optional(reference) : reference,
      supplierKey: Type.String({ description: `The \`Supplier-Key\` its single request would ` +
        'send: the issuer that issues it.', examples: ['sup_Rk5nEXAMPLEm0pWq7c1y9A'] }),
      // Any value: what is not an object is refused for this item alone, as its single
      // request's body would be.
      document: Type.Unknown({ description: `The body its single request would send, ` +
        'checked as that request checks it.' }),
    },
    { additionalProperties: false },
  );
  return Type.Object(
    { items: Type.Array(Item, { minItems: 1, maxItems: BULK_ITEMS_MAX,
      description: `1 to ${BULK_ITEMS_MAX} ${what}s, each accepted or refused on its own.` }) },
    { additionalProperties: false },
  );
}

const ItemError = Type.Object(
  {
    status: Type.Integer({ description: 'The HTTP status its single request would answer.' }),
    code: Type.String({ description: 'The error code its single request would answer.' }),
    message: Type.String({ description: 'The message its single request would answer.' }),
  },
  { additionalProperties: false, description: 'Why the document was refused; null when ' +
    'accepted.' },
);

const acceptedItemFields = (itemReferenceId: ItemReferenceId) => ({
  index: Type.Integer({ minimum: 0, description: 'Its position in `items`, from 0.' }),
  clientReferenceId: itemReferenceId === 'optional'
    ? Type.Union([Type.String(), Type.Null()], { description: 'The item\'s own reference id, ' +
      'as sent; null when it sent none.' })
    : Type.String({ description: 'The item\'s own reference id, as sent.' }),
  issuanceKey: Type.Union([Type.String(), Type.Null()], { description: 'The accepted ' +
    'document\'s `issuanceKey`; null when refused.' }),
  error: Type.Union([ItemError, Type.Null()]),
});

const bulkFields = {
  bulkId: Type.String({ description: 'The bulk, `blk_…`.' }),
  clientReferenceId: Type.String({ description: 'The bulk request\'s ' +
    '`Service-Client-Reference-Id`.' }),
  itemCount: Type.Integer({ description: 'Documents sent.' }),
  acceptedCount: Type.Integer({ description: 'Documents accepted (and charged).' }),
  refusedCount: Type.Integer({ description: 'Documents refused (never charged).' }),
  createdAt: Type.String({ format: 'date-time' }),
};

export function bulkSchemas(options: { title: string; what: string;
  states: readonly string[]; itemReferenceId: ItemReferenceId }) {
  const { title, what, states } = options;
  const itemFields = acceptedItemFields(options.itemReferenceId);
  const Accepted = Type.Object(
    { ...bulkFields, items: Type.Array(Type.Object(itemFields,
      { additionalProperties: false }), { description: 'Each item\'s outcome, in the order ' +
      'sent.' }) },
    { title: `${title}Accepted`, description: `The bulk of ${what}s, with each item's ` +
      'outcome. A retry with the same reference id and items answers the same.',
      additionalProperties: false },
  );
  const Status = Type.Union(states.map((state) => Type.Literal(state)) as TSchema[]);
  const Counts = Type.Object(Object.fromEntries(states.map((state) =>
    [state, Type.Integer({ minimum: 0 })])), { additionalProperties: false,
    description: `How many accepted ${what}s are in each state now.` });
  const summaryFields = {
    ...bulkFields,
    status: Type.Union([Type.Literal('ACCEPTING'), Type.Literal('PROCESSING'),
      Type.Literal('COMPLETED')], { description: 'ACCEPTING while its items are being ' +
      'accepted; PROCESSING while accepted documents are on their way; COMPLETED once every ' +
      'accepted document reached a final state (the completion webhook is sent then).' }),
    completedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  };
  const Bulk = Type.Object(
    { ...summaryFields, counts: Counts,
      items: Type.Array(Type.Object({ ...itemFields,
        status: Type.Union([Status, Type.Null()], { description: 'The accepted document\'s ' +
          'state now; null when refused.' }) }, { additionalProperties: false }),
      { description: 'Each item\'s outcome, in the order sent; empty while ACCEPTING.' }) },
    { title, description: `A bulk of ${what}s: counts per state and each document's outcome.`,
      additionalProperties: false },
  );
  const Page = Type.Object(
    { bulks: Type.Array(Type.Object(summaryFields, { additionalProperties: false }),
      { description: 'Bulks in the order they were made.' }),
    nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` ' +
      'for the next page; null on the last page.' }),
    hasMore: HasMore },
    { title: `${title}Page`, description: `A page of bulks of ${what}s.`,
      additionalProperties: false },
  );
  return { Accepted, Bulk, Page };
}

