import { Type } from '@fastify/type-provider-typebox';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../../platform/error-responses.ts';
import { openEnum } from '../../../platform/open-enum.ts';
import { REGISTRATION_STATUSES, TAX_TYPES } from '../../../upstream/business-profiles/index.ts';
import { NUMBERS_PER_CALL_MAX } from '../../../upstream/tax-authority/index.ts';
import {
  SANDBOX_CLOSED_ON,
  SANDBOX_STATUS_NUMBERS,
} from '../../../upstream/tax-authority/sandbox.ts';

// The request and response schemas of these routes: one TypeBox schema drives validation,
// serialization, the types and the OpenAPI document.

// Business registration status (docs/registration-status.md).

// Room for ten digits written with hyphens and a few stray ones; the service refuses anything
// that is not ten digits once hyphens are removed.
const NUMBER_LENGTH_MAX = 32;
const EXAMPLE_CHECKED_AT = '2026-01-15T03:00:00.000Z';

const NumberInput = Type.String({
  maxLength: NUMBER_LENGTH_MAX,
  description: 'Ten-digit business registration number; hyphens are allowed.',
  examples: ['999-99-01004'],
});

const EXAMPLE_ACTIVE = {
  businessRegistrationNumber: SANDBOX_STATUS_NUMBERS.activeGeneral,
  status: 'ACTIVE',
  closedOn: null,
  taxType: 'GENERAL',
  checkedAt: EXAMPLE_CHECKED_AT,
};
const EXAMPLE_CLOSED = {
  businessRegistrationNumber: SANDBOX_STATUS_NUMBERS.closed,
  status: 'CLOSED',
  closedOn: SANDBOX_CLOSED_ON,
  taxType: 'GENERAL',
  checkedAt: EXAMPLE_CHECKED_AT,
};
const EXAMPLE_NOT_REGISTERED = {
  businessRegistrationNumber: SANDBOX_STATUS_NUMBERS.notRegistered,
  status: 'NOT_REGISTERED',
  closedOn: null,
  taxType: null,
  checkedAt: EXAMPLE_CHECKED_AT,
};

export const RegistrationStatusResult = Type.Object(
  {
    businessRegistrationNumber: Type.String({ description: 'Ten digits, no hyphens.' }),
    status: Type.Enum(REGISTRATION_STATUSES, {
      description: 'Registration state. `UNKNOWN` is any other state the tax ' +
        'authority reports; a communication failure is 503, never `UNKNOWN`.',
    }),
    closedOn: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description: 'Closing date; null unless `status` is `CLOSED` (and null when the ' +
        'authority gives none).',
    }),
    taxType: Type.Union([openEnum(TAX_TYPES, 'Tax type.'), Type.Null()], {
      description: 'Tax type; null when the authority reports none, as for an unregistered ' +
        'number.',
    }),
    checkedAt: Type.String({
      format: 'date-time',
      description: 'When the service checked with the tax authority (UTC).',
    }),
  },
  {
    title: 'RegistrationStatus',
    description: 'The registration state and tax type of one number at call time.',
    additionalProperties: false,
    examples: [EXAMPLE_ACTIVE],
  },
);

export const BulkBody = Type.Object(
  {
    businessRegistrationNumbers: Type.Array(NumberInput, {
      minItems: 1,
      maxItems: NUMBERS_PER_CALL_MAX,
      description: `1 to ${NUMBERS_PER_CALL_MAX} numbers; the same number may appear more ` +
        'than once.',
    }),
  },
  {
    title: 'RegistrationStatusBulkBody',
    additionalProperties: false,
    examples: [{
      businessRegistrationNumbers: ['999-99-01004', '9999901080', '9999901095'],
    }],
  },
);

export const BulkResults = Type.Object(
  {
    results: Type.Array(RegistrationStatusResult, {
      minItems: 1,
      maxItems: NUMBERS_PER_CALL_MAX,
      description: 'One item per number sent, in the order sent.',
    }),
  },
  {
    title: 'RegistrationStatusResults',
    description: 'One registration status per number sent, in the order sent.',
    additionalProperties: false,
    examples: [{ results: [EXAMPLE_ACTIVE, EXAMPLE_CLOSED, EXAMPLE_NOT_REGISTERED] }],
  },
);

export const Params = Type.Object({ businessRegistrationNumber: NumberInput }, {
  additionalProperties: false,
});

const COMMON_DESCRIPTION =
  ' A communication failure with the tax authority is 503 LOOKUP_UNAVAILABLE (never `UNKNOWN`) ' +
  'and charges nothing. With a live key, each result is also stored as the registration and ' +
  'taxation of the business profile when one exists. Test keys use the sandbox numbers of ' +
  'docs/sandbox.md.';

export const BULK_DESCRIPTION =
  'Checks the registration state and tax type of 1 to 100 numbers at call time, in one call to ' +
  'the tax authority. The response has one item per number, in the order sent. A number that ' +
  'is not ten digits once hyphens are removed is 400 INVALID_REQUEST and a checksum mismatch ' +
  '400 INVALID_BUSINESS_REGISTRATION_NUMBER, for the whole request (the message names the ' +
  'index). Charge: 10 points per distinct number whose status is returned.' + COMMON_DESCRIPTION;

export const SINGLE_DESCRIPTION =
  'Checks the registration state and tax type of one number at call time. A number that is ' +
  'not ten digits once hyphens are removed is 400 INVALID_REQUEST; a checksum mismatch is 400 ' +
  'INVALID_BUSINESS_REGISTRATION_NUMBER. An unregistered number is 200 with `NOT_REGISTERED`. ' +
  'Charge: 10 points when the status is returned.' + COMMON_DESCRIPTION;

// The numbers are checked by the service, after the rate limit.
const ERRORS = [...PLATFORM_ERRORS, INPUT_CHECKED_AFTER_COUNTING,
  'INVALID_BUSINESS_REGISTRATION_NUMBER', 'PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT',
  'LOOKUP_UNAVAILABLE'] as const;
export const BULK_ERRORS = errorResponses(...ERRORS, ...BODY_ERRORS);
export const SINGLE_ERRORS = errorResponses(...ERRORS);
