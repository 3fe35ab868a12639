import { Type, type Static } from '@fastify/type-provider-typebox';
import { ACCOUNTS_PER_REQUEST_MAX } from '../../domain/bank-codes.ts';
import { openEnum } from '../../platform/open-enum.ts';
import { ITEM_ERROR_CODES } from './service.ts';

// The request and response schemas of these routes: one TypeBox schema drives validation,
// serialization, the types and the OpenAPI document.

// Bank account holder lookup (docs/bank-account-holders.md). A bank code or
// account number that is a string within these bounds is checked by the service, so a bulk
// request answers a malformed account with an item error instead of failing as a whole.

// Room for a code sent with stray characters; a valid code has three digits.
const BANK_CODE_LENGTH_MAX = 16;
// Room for 16 digits written with hyphens and spaces; a valid number has 8 to 16 digits.
const ACCOUNT_NUMBER_LENGTH_MAX = 64;

const BankCode = Type.String({
  maxLength: BANK_CODE_LENGTH_MAX,
  description: 'Three-digit bank code (금융결제원 code), e.g. `004` for KB국민은행. ' +
    'Echoed back as sent.',
  examples: ['004'],
});
const AccountNumber = Type.String({
  maxLength: ACCOUNT_NUMBER_LENGTH_MAX,
  description: 'Account number: 8 to 16 digits once hyphens and spaces are removed. ' +
    'Echoed back as sent.',
  examples: ['123-456-789012'],
});

export const AccountRef = Type.Object(
  { bankCode: BankCode, accountNumber: AccountNumber },
  {
    title: 'BankAccountRef',
    description: 'A bank account to look up.',
    additionalProperties: false,
    examples: [{ bankCode: '004', accountNumber: '123-456-789012' }],
  },
);
export type AccountRef = Static<typeof AccountRef>;

export const HolderLookupBody = Type.Object(
  {
    accounts: Type.Array(AccountRef, {
      minItems: 1,
      maxItems: ACCOUNTS_PER_REQUEST_MAX,
      description: `1 to ${ACCOUNTS_PER_REQUEST_MAX} accounts; the same account may appear ` +
        'more than once.',
    }),
  },
  {
    title: 'HolderLookupBody',
    additionalProperties: false,
    examples: [{
      accounts: [
        { bankCode: '004', accountNumber: '123-456-789012' },
        { bankCode: '088', accountNumber: '9990000002' },
      ],
    }],
  },
);
export type HolderLookupBody = Static<typeof HolderLookupBody>;

const ItemError = Type.Object(
  {
    code: openEnum(ITEM_ERROR_CODES,
      'Why the account has no holder name (docs/bank-account-holders.md).'),
    message: Type.String({ description: 'Human-readable description.' }),
  },
  { title: 'HolderLookupItemError', additionalProperties: false },
);

const HolderLookupItem = Type.Object(
  {
    bankCode: Type.String({ description: 'The bank code as sent.' }),
    accountNumber: Type.String({ description: 'The account number as sent.' }),
    holderName: Type.Union([Type.String(), Type.Null()], {
      description: 'The holder name, or null when the account has none to return.',
    }),
    error: Type.Union([ItemError, Type.Null()], {
      description: 'null when a holder name is returned; otherwise the cause.',
    }),
  },
  {
    title: 'HolderLookupItem',
    description: 'The result for one requested account.',
    additionalProperties: false,
  },
);
type HolderLookupItem = Static<typeof HolderLookupItem>;

export const HolderLookupResults = Type.Object(
  {
    results: Type.Array(HolderLookupItem, {
      minItems: 1,
      maxItems: ACCOUNTS_PER_REQUEST_MAX,
      description: 'One item per requested account, in the order sent.',
    }),
  },
  {
    title: 'HolderLookupResults',
    description: 'One result per requested account, in the order sent.',
    additionalProperties: false,
    examples: [{
      results: [
        { bankCode: '004', accountNumber: '123-456-789012', holderName: '김철수', error: null },
        {
          bankCode: '088',
          accountNumber: '9990000002',
          holderName: null,
          error: {
            code: 'ACCOUNT_NOT_FOUND',
            message: 'The bank has no account with this number.',
          },
        },
      ],
    }],
  },
);
export type HolderLookupResults = Static<typeof HolderLookupResults>;

export const HolderLookup = Type.Object(
  {
    bankCode: Type.String({ description: 'The bank code as sent.' }),
    accountNumber: Type.String({ description: 'The account number as sent.' }),
    holderName: Type.String({ description: 'The account holder\'s name.' }),
  },
  {
    title: 'HolderLookup',
    description: 'The holder of one account.',
    additionalProperties: false,
    examples: [{ bankCode: '004', accountNumber: '123-456-789012', holderName: '김철수' }],
  },
);
export type HolderLookup = Static<typeof HolderLookup>;

export const BULK_DESCRIPTION =
  'Looks up the holder names of 1 to 100 accounts. The response has one item per account, in ' +
  'the order sent: a holder name, or null with the cause in `error`. Malformed accounts are ' +
  'answered without asking the bank network. When accounts were sent to the bank network and ' +
  'none of them got an answer, the response is 503 LOOKUP_UNAVAILABLE instead and nothing is ' +
  'charged. Charge: 50 points per distinct account returning a holder name. Test keys use the ' +
  'sandbox accounts of docs/sandbox.md.';

export const SINGLE_DESCRIPTION =
  'Looks up the holder name of one account. A malformed bank code or account number is 400 ' +
  'INVALID_REQUEST; an account that does not exist or is closed is 404 NOT_FOUND; a virtual ' +
  'account with a fixed deposit amount is 400 AMOUNT_REQUIRED; a bank that does not answer is ' +
  '503 LOOKUP_UNAVAILABLE. Charge: 50 points when a holder name is returned.';
