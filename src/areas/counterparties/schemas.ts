import { Type, type Static } from '@fastify/type-provider-typebox';
import { HasMore, NextCursor, pageQueryFields } from '../../platform/paging.ts';
import { PRINTED_TEXT_PATTERN } from '../../domain/text.ts';
import { Manager, partyFields } from '../tax-invoices/index.ts';

// Request and response schemas of the counterparty book (docs/counterparties.md). A
// counterparty's fields are a tax invoice recipient's (`supplied`), checked by the same schema
// pieces, so that an issuance can take them as they are.

const MANAGERS_MAX = 2;
const MEMO_LENGTH_MAX = 1_000;

const BusinessRegistrationNumberInput = Type.String({
  pattern: '^[0-9]{3}-?[0-9]{2}-?[0-9]{5}$',
  description: 'Business registration number (사업자등록번호): ten digits, hyphens allowed ' +
    '(123-45-67890); the checksum is checked.', examples: ['220-81-62517'] });

const Memo = Type.Union([Type.String({ minLength: 1, maxLength: MEMO_LENGTH_MAX,
  pattern: PRINTED_TEXT_PATTERN,
  description: 'A note for the account\'s people, one line of printable text; never printed ' +
    'on an invoice.',
  examples: ['월말 정산'] }), Type.Null()]);

const Managers = Type.Array(Manager, { maxItems: MANAGERS_MAX, description: 'Who receives ' +
  'the invoices: the first gets them, the second a copy. Empty for none yet; an issuance that ' +
  'names the counterparty then gives its own.' });

const AutoRefresh = Type.Boolean({ description: 'Check the registration status again on the ' +
  'schedule (weekly by default), charged as a registration status lookup. Default false.' });

export const CounterpartyInput = Type.Object(
  {
    businessRegistrationNumber: BusinessRegistrationNumberInput,
    ...partyFields,
    managers: Type.Optional(Managers),
    memo: Type.Optional(Memo),
    autoRefreshStatus: Type.Optional(AutoRefresh),
  },
  { title: 'CounterpartyInput', additionalProperties: false,
    examples: [{ businessRegistrationNumber: '220-81-62517', organizationName: '주식회사 받는곳',
      representativeName: '이영희', address: '부산광역시 해운대구 센텀중앙로 97',
      businessType: '도소매', businessItem: '전자제품',
      managers: [{ email: 'account@example.com', name: '박수신', telephone: '010-1234-5678' }],
      memo: '월말 정산' }] },
);
export type CounterpartyInput = Static<typeof CounterpartyInput>;

export const CounterpartyChanges = Type.Partial(CounterpartyInput, {
  title: 'CounterpartyChanges', additionalProperties: false, minProperties: 1,
  description: 'The fields to change; fields left out keep their values, null clears an ' +
    'optional one. A new business registration number clears the registration status.' });
export type CounterpartyChanges = Static<typeof CounterpartyChanges>;

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const RegistrationStatusValue = Type.Union([Type.Literal('ACTIVE'),
  Type.Literal('SUSPENDED'), Type.Literal('CLOSED'), Type.Literal('NOT_REGISTERED'),
  Type.Literal('UNKNOWN')], { description: 'ACTIVE (계속사업자), SUSPENDED (휴업), CLOSED (폐업), ' +
  'NOT_REGISTERED or UNKNOWN, as the tax authority answered.' });

export const Counterparty = Type.Object(
  {
    id: Type.String({ description: 'The counterparty, `cpt_`…' }),
    businessRegistrationNumber: Type.String({ pattern: '^[0-9]{10}$',
      description: 'Ten digits without hyphens.' }),
    taxRegistrationId: Nullable(Type.String()),
    organizationName: Type.String(),
    representativeName: Type.String(),
    address: Nullable(Type.String()),
    businessType: Nullable(Type.String()),
    businessItem: Nullable(Type.String()),
    managers: Type.Array(Manager),
    memo: Nullable(Type.String()),
    autoRefreshStatus: Type.Boolean(),
    registration: Type.Object({
      status: Type.Union([RegistrationStatusValue, Type.Null()], { description: 'Null until ' +
        'the first check.' }),
      closedOn: Nullable(Type.String({ format: 'date' })),
      taxType: Nullable(Type.String()),
      checkedAt: Nullable(Type.String({ format: 'date-time' })),
      closed: Type.Boolean({ description: 'True when the last check found the business ' +
        'closed: an issuance that names this counterparty is refused (409 ' +
        'COUNTERPARTY_CLOSED).' }),
    }, { additionalProperties: false, description: 'The registration status as last checked.' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { title: 'Counterparty', description: 'A counterparty (거래처) of the book.',
    additionalProperties: false },
);
export type CounterpartyView = Static<typeof Counterparty>;

export const CounterpartyParams = Type.Object({
  counterpartyId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$',
    description: 'The counterparty\'s id.' }),
}, { additionalProperties: false });

export const ListQuery = Type.Object({
  ...pageQueryFields('counterparties'),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000]+$',
    description: 'Only counterparties whose business name contains this text (case ' +
      'ignored).' })),
  businessRegistrationNumber: Type.Optional(Type.String({ pattern: '^[0-9-]{1,12}$',
    description: 'Only counterparties whose number starts with these digits (hyphens ' +
      'ignored).' })),
  closed: Type.Optional(Type.Boolean({ description: 'Only closed (true) or not closed ' +
    '(false) counterparties.' })),
}, { additionalProperties: false });

export const CounterpartyPage = Type.Object(
  { counterparties: Type.Array(Counterparty), nextCursor: NextCursor, hasMore: HasMore },
  { title: 'CounterpartyPage', description: 'Counterparties, newest first.',
    additionalProperties: false },
);

// ---- Import ----------------------------------------------------------------------------------

const ImportRow = Type.Object({
  row: Type.Integer({ description: 'The row\'s number in the file (the header is row 1 when ' +
    'it is the first line).' }),
  values: Type.Record(Type.String(), Type.String(), { description: 'The row\'s cells by ' +
    'column.' }),
  errors: Type.Array(Type.Object({
    column: Type.Union([Type.String(), Type.Null()], { description: 'The column of the bad ' +
      'cell; null for what is wrong with the row as a whole.' }),
    message: Type.String(),
  }, { additionalProperties: false }), { description: 'Empty for a row that will be added.' }),
}, { additionalProperties: false });

export const CounterpartyImport = Type.Object(
  {
    id: Type.String({ description: 'The import, `cpi_`…: commit it to add its valid rows.' }),
    status: Type.Union([Type.Literal('PREVIEWED'), Type.Literal('COMMITTED')]),
    fileName: Type.Union([Type.String(), Type.Null()]),
    columns: Type.Array(Type.String(), { description: 'The columns read, in template order.' }),
    rows: Type.Array(ImportRow),
    validRows: Type.Integer(),
    invalidRows: Type.Integer(),
    createdCount: Type.Union([Type.Integer(), Type.Null()], { description: 'Counterparties ' +
      'the commit added; null before it.' }),
    createdAt: Type.String({ format: 'date-time' }),
    committedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'CounterpartyImport', description: 'An uploaded file of counterparties, validated ' +
    'row by row.', additionalProperties: false },
);

export const ImportParams = Type.Object({
  importId: Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9_-]+$' }),
}, { additionalProperties: false });

export const ImportUploadBody = Type.Object({
  file: Type.String({ format: 'binary', description: 'A CSV (UTF-8 or EUC-KR) or xlsx file ' +
    'in the template\'s columns, at most 1 MiB and 1,000 rows.' }),
}, { title: 'CounterpartyImportUpload' });
