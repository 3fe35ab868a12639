import { Type, type Static } from '@fastify/type-provider-typebox';
import { openEnum } from '../../../platform/open-enum.ts';
import { IssueValidation } from '../issuance/schemas.ts';
import {
  AMENDMENT_REASONS,
  AMOUNT_ABS_MAX,
  Invoice,
  Item,
  ITEMS_MAX,
  Payment,
  PRINTABLE,
  type AmendmentReason,
} from '../schemas.ts';
import { AMENDMENT_DESCRIPTION_LENGTH_MAX } from './reason-rule.ts';

// Request and response schemas of the amendment routes (docs/tax-invoice-amendments.md). The
// examples amend an invoice written on 2026-11-20 by the sandbox issuer 123-45-67891 to the
// recipient 220-81-62517 of docs/sandbox.md.

const DateString = (description: string, example: string) =>
  Type.String({ format: 'date', description, examples: [example] });

const AmendmentDescription = Type.Optional(Type.Union([Type.String({
  minLength: 1, maxLength: AMENDMENT_DESCRIPTION_LENGTH_MAX, pattern: PRINTABLE,
  description: 'Your remark. The document\'s remark (비고) is `당초 작성일자 <original write ' +
    'date>`, then a space and this text.', examples: ['단가 인하 합의'] }), Type.Null()]));

// The payment breakdown of the one document an amendment makes from the request's amounts: that
// document's own, never the original's (docs/tax-invoice-amendments.md § What every amendment has
// in common).
const AmendmentPayment = (description: string) =>
  Type.Optional(Type.Union([Payment, Type.Null()], { description }));

const itemDate = Type.Optional(DateString('Supply date (공급일자): in the month of `date` and ' +
  'not after it. Defaults to `date`.', '2026-12-03'));

// An item of a supply cost change: the difference, positive for an increase and negative for a
// decrease, with the tax of that difference.
const AmendmentItem = Type.Object(
  { ...Item.properties, date: itemDate },
  { title: 'TaxInvoiceAmendmentItem', additionalProperties: false },
);
type AmendmentItem = Static<typeof AmendmentItem>;

// An item of a return: what came back, in positive amounts; the document carries them negated.
const ReturnedItem = Type.Object(
  {
    ...Item.properties,
    date: itemDate,
    quantity: Type.Optional(Type.Union([Type.Number({ exclusiveMinimum: 0,
      maximum: 999_999_999, multipleOf: 0.01,
      description: 'Quantity returned, above 0; up to two decimals.' }), Type.Null()])),
    supplyCost: Type.Integer({ minimum: 1, maximum: AMOUNT_ABS_MAX,
      description: 'Supply cost (공급가액) of the returned goods in won, above 0.' }),
    tax: Type.Union([Type.Integer({ minimum: 0, maximum: AMOUNT_ABS_MAX }), Type.Null()], {
      description: 'VAT (세액) of the returned goods in won, 0 or more; null when the tax ' +
        'invoice amended is tax-exempt (계산서).' }),
  },
  { title: 'TaxInvoiceReturnedItem', additionalProperties: false },
);
type ReturnedItem = Static<typeof ReturnedItem>;

export const TerminationBody = Type.Object(
  { date: DateString('Date the contract was terminated (계약해제일), the write date of the ' +
    'amendment: today or earlier, not before the original\'s write date, and with its issue ' +
    'deadline (the 10th of the next month) not yet passed.', '2026-12-03') },
  { title: 'TaxInvoiceTerminationBody', additionalProperties: false,
    examples: [{ date: '2026-12-03' }] },
);

export const SupplyCostChangeBody = Type.Object(
  {
    date: DateString('Date the supply cost changed, the write date of the amendment: today ' +
      'or earlier, not before the original\'s write date, and with its issue deadline not ' +
      'yet passed.', '2026-12-03'),
    items: Type.Array(AmendmentItem, { minItems: 1, maxItems: ITEMS_MAX,
      description: 'The differences: positive for an increase, negative for a decrease.' }),
    description: AmendmentDescription,
    payment: AmendmentPayment('The payment breakdown of the difference (what is paid, ' +
      'refunded or no longer owed by each means), its parts adding up to at most the size of ' +
      'its total. The original\'s breakdown is not copied; without this the document has none.'),
  },
  { title: 'TaxInvoiceSupplyCostChangeBody', additionalProperties: false,
    examples: [{ date: '2026-12-03', items: [{ name: '클라우드 사용료 단가 인하',
      supplyCost: -10_000, tax: -1_000 }], description: '단가 인하 합의' }] },
);

export const ReturnedGoodsBody = Type.Object(
  {
    date: DateString('Date the goods came back (환입일), the write date of the amendment: ' +
      'today or earlier, not before the original\'s write date, and with its issue deadline ' +
      'not yet passed.', '2026-12-03'),
    items: Type.Array(ReturnedItem, { minItems: 1, maxItems: ITEMS_MAX,
      description: 'The returned goods in positive amounts; the document negates them.' }),
    description: AmendmentDescription,
    payment: AmendmentPayment('The payment breakdown of the return (what is refunded or no ' +
      'longer owed by each means), its parts adding up to at most the size of its total. The ' +
      'original\'s breakdown is not copied; without this the document has none.'),
  },
  { title: 'TaxInvoiceReturnedGoodsBody', additionalProperties: false,
    examples: [{ date: '2026-12-03', items: [{ name: '클라우드 사용료', quantity: 2,
      unitPrice: 5_000, supplyCost: 10_000, tax: 1_000 }] }] },
);

const CORRECTED_EXAMPLE = {
  date: '2026-11-20',
  purpose: 'CLAIM',
  supplier: {
    identificationNumber: '1234567891', organizationName: '주식회사 이택스',
    representativeName: '홍길동', address: '서울특별시 중구 세종대로 110',
    manager: { email: 'tax@example.co.kr', name: '김담당' },
  },
  supplied: {
    identificationNumber: '2208162517', organizationName: '주식회사 받는곳',
    representativeName: '이영희', address: '부산광역시 해운대구 센텀중앙로 97',
    managers: [{ email: 'account@example.com' }],
  },
  items: [{ date: '2026-11-20', name: '클라우드 사용료', quantity: 10, unitPrice: 5_000,
    supplyCost: 50_000, tax: 5_000 }],
  description: '11월 이용료',
};

export const EntryCorrectionBody = Type.Object(
  { invoice: Invoice },
  { title: 'TaxInvoiceEntryCorrectionBody', additionalProperties: false,
    examples: [{ invoice: CORRECTED_EXAMPLE }] },
);

export const LocalLetterOfCreditBody = Type.Object(
  {
    openedOn: DateString('Date the local letter of credit or purchase confirmation was ' +
      'opened (개설일): today or earlier, not before the original\'s write date, and at most ' +
      '25 days after the end of its VAT period (July 25 for January–June, January 25 for ' +
      'July–December).', '2026-12-15'),
    items: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: ITEMS_MAX - 1 }), {
      minItems: 1, maxItems: ITEMS_MAX, uniqueItems: true,
      description: 'Positions (from 0) in the original\'s `items` of the items the letter of ' +
        'credit covers. Defaults to every item with a tax other than 0.' })),
    payment: AmendmentPayment('The payment breakdown of the zero-rated document, its parts ' +
      'adding up to at most its total; without this it has none. The negative document keeps ' +
      'the original\'s breakdown when it covers every item of the original, and has none ' +
      'otherwise.'),
  },
  { title: 'TaxInvoiceLocalLetterOfCreditBody', additionalProperties: false,
    examples: [{ openedOn: '2026-12-15' }, { openedOn: '2026-12-15', items: [0] }] },
);

export const OneDocumentAccepted = Type.Object(
  { issuanceKey: Type.String({ description: 'The amendment document; it is issued and ' +
    'transmitted like any tax invoice.' }) },
  { title: 'TaxInvoiceAmendmentAccepted', description: 'The amendment, accepted: its one ' +
    'document.', additionalProperties: false,
    examples: [{ issuanceKey: 'txi_9E63A0BE4FCBF161C8ADF054DD' }] },
);

export const TwoDocumentsAccepted = Type.Object(
  {
    issuanceKey: Type.String({ description: 'The first document, as `issuanceKeys[0]`.' }),
    issuanceKeys: Type.Array(Type.String(), { minItems: 2, maxItems: 2,
      description: 'Both documents in order: the negative one, then the positive one.' }),
  },
  { title: 'TaxInvoiceAmendmentPairAccepted', description: 'The amendment, accepted: its two ' +
    'documents.', additionalProperties: false,
    examples: [{ issuanceKey: 'txi_9E63A0BE4FCBF161C8ADF054DD',
      issuanceKeys: ['txi_9E63A0BE4FCBF161C8ADF054DD', 'txi_AF74B1CF5ADCA272D9BEA165EE'] }] },
);

const ValidatedDocument = IssueValidation.properties.documents.items;

// What the validations of the amendment routes answer: the documents amend would make, as etax
// computes them, and their price.
export const AmendmentValidation = Type.Object(
  {
    valid: IssueValidation.properties.valid,
    supplier: IssueValidation.properties.supplier,
    documents: Type.Array(Type.Object({
      ...ValidatedDocument.properties,
      amendment: Type.Object({
        reason: openEnum(Object.keys(AMENDMENT_REASONS) as AmendmentReason[],
          'The amendment reason.'),
        originalIssuanceKey: Type.String({ description: 'The tax invoice amended.' }),
      }, { additionalProperties: false }),
    }, { additionalProperties: false }), { minItems: 1, maxItems: 2,
      description: 'The documents the amendment would make, in order (two for an entry ' +
        'correction or a local letter of credit: the negative one first), with the totals ' +
        'and tax as etax computes them, the issue deadline and whether each would be late.' }),
    price: Type.Object({
      operation: Type.Literal('taxInvoices.issue', { description: 'The price row.' }),
      points: Type.Integer({ minimum: 0, description: 'What amending would charge now: the ' +
        'price of one document for each document made; the balance covers it.' }),
    }, { additionalProperties: false }),
  },
  { title: 'TaxInvoiceAmendmentValidation', description: 'What this amendment would do. ' +
    'Nothing was charged, recorded or claimed.', additionalProperties: false },
);
