import { Type } from '@fastify/type-provider-typebox';
import { APPROVAL_NUMBER_PATTERN_SOURCE } from '../../domain/approval-number.ts';
import { COLLECTION_MONTHS_MAX, FEED_LIMIT_MAX } from './service.ts';

// `state` was this area's name for `status` (docs/api-conventions.md).
const STATE_DEPRECATED = 'Deprecated: the same value as `status`, kept for existing clients.';

// The request and response schemas of the revenue and expense routes (docs/revenue-expense.md).

const Month = (description: string, example: string) => Type.String({
  pattern: '^[0-9]{4}-(0[1-9]|1[0-2])$', description, examples: [example] });
const DateString = (description: string) => Type.String({ format: 'date', description });
const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
const Direction = Type.Union([Type.Literal('SALES'), Type.Literal('PURCHASE')], {
  description: '`SALES`: the account\'s business supplied (매출); `PURCHASE`: it received (매입).',
});

export const FeedQuery = Type.Object(
  {
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The ' +
      '`nextCursor` of the previous page, as returned. Without it the feed starts at its ' +
      'beginning.' })),
    limit: Type.Integer({ minimum: 1, maximum: FEED_LIMIT_MAX, default: 100,
      description: `Items per page, 1 to ${FEED_LIMIT_MAX}.` }),
    direction: Type.Optional(Direction),
    writeDateFrom: Type.Optional(DateString('Only invoices written on or after this day.')),
    writeDateTo: Type.Optional(DateString('Only invoices written on or before this day.')),
  },
  { additionalProperties: false },
);

const ITEM_EXAMPLE = {
  direction: 'SALES', source: 'ISSUED_HERE', approvalNumber: '202611204100000000000123',
  issuanceKey: 'txi_3sUe0nB2m9K1aVtQx7YpLw', writeDate: '2026-11-20', issueDate: '2026-11-20',
  counterpart: { businessRegistrationNumber: '2208162517', name: '주식회사 받는자' },
  supplyCost: 100_000, tax: 10_000, totalAmount: 110_000, taxType: 'TAXABLE', amendment: null,
  status: 'TRANSMITTED', late: false, changeSequence: 42, changedAt: '2026-11-20T01:02:03.000Z',
};

const FeedItem = Type.Object(
  {
    direction: Direction,
    source: Type.Union([Type.Literal('ISSUED_HERE'), Type.Literal('COLLECTED')], {
      description: '`ISSUED_HERE`: issued through etax; `COLLECTED`: collected from the tax ' +
        'portal.' }),
    approvalNumber: Type.String({ pattern: APPROVAL_NUMBER_PATTERN_SOURCE,
      description: 'The tax authority\'s approval number (국세청 승인번호): 24 characters, the ' +
        'issue date, the issuing system\'s code and a serial of digits or lower-case letters.' }),
    issuanceKey: Type.Union([Type.String(), Type.Null()], { description: 'The etax tax ' +
      'invoice, for ISSUED_HERE sales; null otherwise.' }),
    writeDate: DateString('Write date (작성일자).'),
    issueDate: DateString('Issue date (발급일자).'),
    counterpart: Type.Object({
      businessRegistrationNumber: Type.String({ description: 'The other party\'s number.' }),
      name: Type.String({ description: 'The other party\'s business name.' }),
    }, { additionalProperties: false, description: 'The recipient of a sale, the supplier of ' +
      'a purchase.' }),
    supplyCost: Type.Integer({ description: 'Supply cost in won; negative for a reducing ' +
      'amendment.' }),
    tax: Type.Integer({ description: 'VAT in won; 0 for tax-free and zero-rated invoices.' }),
    totalAmount: Type.Integer({ description: 'supplyCost + tax.' }),
    taxType: Type.Union([Type.Literal('TAXABLE'), Type.Literal('ZERO_RATED'),
      Type.Literal('TAX_FREE')], { description: '`TAXABLE` (세금계산서), `ZERO_RATED` (영세율) ' +
      'or `TAX_FREE` (계산서).' }),
    amendment: Type.Union([Type.Object({
      reason: Type.Integer({ minimum: 1, maximum: 6, description: 'Amendment reason code.' }),
      originalApprovalNumber: Type.String({ pattern: APPROVAL_NUMBER_PATTERN_SOURCE,
        description: 'The amended invoice.' }),
    }, { additionalProperties: false }), Type.Null()], { description: 'For an amended ' +
      'invoice (수정세금계산서); null otherwise.' }),
    status: Type.Union([Type.Literal('ISSUED'), Type.Literal('TRANSMITTED')], {
      description: '`ISSUED`: issued, not yet transmitted to the tax authority; `TRANSMITTED`.' }),
    late: Type.Boolean({ description: 'Issued after the issue deadline (the 10th of the next ' +
      'month).' }),
    changeSequence: Type.Integer({ description: 'The position of this change in the ' +
      'account\'s order of change; increases with every change.' }),
    changedAt: Timestamp('When etax recorded this change.'),
  },
  { title: 'RevenueExpenseTaxInvoice', additionalProperties: false, examples: [ITEM_EXAMPLE] },
);

export const FeedPage = Type.Object(
  {
    items: Type.Array(FeedItem),
    nextCursor: Type.String({ description: 'Store it and pass it as `cursor` to read what ' +
      'changed after this page; always present, even when the page is empty.' }),
    hasMore: Type.Boolean({ description: 'Whether more items follow right now.' }),
  },
  { title: 'RevenueExpenseTaxInvoicePage', description: 'Own tax invoices in the order of ' +
    'change. Every change appears once after the cursor that preceded it.',
  additionalProperties: false,
  examples: [{ items: [ITEM_EXAMPLE], nextCursor: 'WzQyXQ', hasMore: false }] },
);

export const CollectBody = Type.Object(
  {
    from: Month('First month to collect, `YYYY-MM`.', '2026-10'),
    to: Month(`Last month to collect, \`YYYY-MM\`; at most ${COLLECTION_MONTHS_MAX} months ` +
      'after `from`, and not after the current month (Korea time).', '2026-11'),
  },
  { title: 'RevenueExpenseCollectRequest', additionalProperties: false,
    examples: [{ from: '2026-10', to: '2026-11' }] },
);

export const CollectAccepted = Type.Object(
  { collectionId: Type.String({ description: 'The collection: a new one, or the one of the ' +
    'same connection already queued or running, which this request joined.' }) },
  { title: 'RevenueExpenseCollectAccepted', description: 'The collection runs in the ' +
    'background.', additionalProperties: false,
  examples: [{ collectionId: 'rec_3sUe0nB2m9K1aVtQx7YpLw' }] },
);

export const CollectionParams = Type.Object(
  { collectionId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$',
    description: 'The collection id, e.g. `rec_…`.' }) },
  { additionalProperties: false },
);

export const Collection = Type.Object(
  {
    collectionId: Type.String(),
    connectionId: Type.String({ description: 'The HOMETAX connection it collects through.' }),
    from: Type.String({ description: 'First month.' }),
    to: Type.String({ description: 'Last month.' }),
    state: Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'),
      Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], { deprecated: true,
      description: STATE_DEPRECATED }),
    status: Type.Union([Type.Literal('QUEUED'), Type.Literal('RUNNING'),
      Type.Literal('SUCCEEDED'), Type.Literal('FAILED')], { description: 'Where the ' +
      'collection stands.' }),
    counts: Type.Object({
      collected: Type.Integer({ description: 'Invoices the portal listed.' }),
      inserted: Type.Integer({ description: 'New in the books.' }),
      updated: Type.Integer({ description: 'Changed since they were last recorded.' }),
      unchanged: Type.Integer({ description: 'Already recorded as they are.' }),
    }, { additionalProperties: false }),
    failure: Type.Union([Type.Object({ code: Type.String(), message: Type.String() },
      { additionalProperties: false }), Type.Null()], { description: 'Why it FAILED.' }),
    requestedAt: Timestamp('When it was requested.'),
    startedAt: Type.Union([Timestamp('When it started.'), Type.Null()]),
    finishedAt: Type.Union([Timestamp('When it ended.'), Type.Null()]),
  },
  { title: 'RevenueExpenseCollection', description: 'A collection from the tax portal.',
    additionalProperties: false },
);
