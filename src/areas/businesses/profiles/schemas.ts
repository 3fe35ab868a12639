import { Type, type Static } from '@fastify/type-provider-typebox';
import { HasMore } from '../../../platform/paging.ts';
import { openEnum } from '../../../platform/open-enum.ts';
import {
  BUSINESS_KINDS,
  REGISTRATION_STATUSES,
  TAX_TYPES,
} from '../../../upstream/business-profiles/index.ts';
import { SANDBOX_CORPORATION } from '../../../upstream/business-profiles/sandbox.ts';

// The request and response schemas of these routes: one TypeBox schema drives validation,
// serialization, the types and the OpenAPI document.

// Business profile retrieval (docs/business-profiles.md).

// Room for ten digits written with hyphens and a few stray ones; longer is refused as not ten
// digits by the same check, so the bound only keeps the path short.
const NUMBER_PARAMETER_LENGTH_MAX = 32;
const SEARCH_LIMIT_MAX = 100;
const SEARCH_LIMIT_DEFAULT = 20;

const nullable = <T extends ReturnType<typeof Type.String>>(
  schema: T,
  description: string,
) =>
  Type.Union([schema, Type.Null()], { description });
const DateString = Type.String({ format: 'date' });

const Classification = Type.Object(
  {
    code: Type.String({ description: 'Classification code.' }),
    name: Type.String({ description: 'Classification name (Korean).' }),
  },
  { title: 'Classification', additionalProperties: false },
);

const FormerName = Type.Object(
  {
    name: Type.String({ description: 'Former business name.' }),
    changedOn: nullable(DateString, 'Date the new name first appeared in public filings; may ' +
      'differ from the registration date of the change.'),
  },
  { title: 'FormerOrganizationName', additionalProperties: false },
);

const Address = Type.Object(
  {
    roadAddress: nullable(Type.String(), 'Road name address.'),
    postalCode: nullable(Type.String(), 'Five-digit postal code.'),
    sidoCode: nullable(Type.String(), 'Two-digit legal district code of the province.'),
    sigunguCode: nullable(Type.String(), 'Five-digit legal district code of the district.'),
  },
  { title: 'Address', additionalProperties: false },
);

const Contact = Type.Object(
  {
    phone: nullable(Type.String(), 'Main phone number, hyphen-formatted.'),
    email: nullable(Type.String(), 'Main email address.'),
    websites: Type.Array(Type.String(), { description: 'Website URLs; may be empty.' }),
  },
  { title: 'Contact', description: 'Always present, even with no details.',
    additionalProperties: false },
);

const Industry = Type.Object(
  {
    businessType: nullable(Type.String(), 'Business type as registered with the tax authority.'),
    businessItem: nullable(Type.String(), 'Business item as registered with the tax authority.'),
    standardIndustry: Type.Union([Classification, Type.Null()], {
      description: 'Korean Standard Industrial Classification, 11th revision, sub-subclass; ' +
        'the code has five digits.',
    }),
    category: Type.Union([Classification, Type.Null()], {
      description: 'Classification section; the code runs from `A` to `U`.',
    }),
  },
  { title: 'Industry', description: 'Always present, even if unknown.',
    additionalProperties: false },
);

const Registration = Type.Object(
  {
    status: Type.Enum(REGISTRATION_STATUSES, {
      description: 'Registration state. `UNKNOWN` is any other state.',
    }),
    closedOn: nullable(DateString, 'Closing date; null unless the business is closed.'),
    checkedAt: Type.String({
      format: 'date-time',
      description: 'When the service last checked with the tax authority (UTC).',
    }),
  },
  { title: 'Registration', additionalProperties: false },
);

const Taxation = Type.Object(
  {
    type: openEnum(TAX_TYPES, 'Tax type.'),
  },
  { title: 'Taxation', additionalProperties: false },
);

export const BusinessProfile = Type.Object(
  {
    businessRegistrationNumber: Type.String({ description: 'Ten digits, no hyphens.' }),
    corporateRegistrationNumber: nullable(Type.String(), '13 digits, no hyphens.'),
    businessKind: Type.Union([Type.Enum(BUSINESS_KINDS), Type.Null()], {
      description: '`INDIVIDUAL` (sole proprietor) or `CORPORATE` (corporation).',
    }),
    commercialSalesNumber: nullable(Type.String(), 'Mail-order business report number.'),
    organizationName: nullable(Type.String(), 'Business name.'),
    organizationNameEnglish: nullable(Type.String(), 'English business name.'),
    formerOrganizationNames: Type.Array(FormerName, {
      description: 'Former names, most recently changed first; may be empty.',
    }),
    representativeName: nullable(Type.String(), 'A value masked at the source stays masked.'),
    address: Type.Union([Address, Type.Null()], {
      description: 'Null when the source has no address.',
    }),
    contact: Contact,
    industry: Industry,
    openedOn: nullable(DateString, 'Opening date.'),
    businessRegisteredOn: nullable(DateString, 'Registration date.'),
    corporationEstablishedOn: nullable(DateString, 'Establishment date of the corporation.'),
    registration: Type.Union([Registration, Type.Null()], {
      description: 'The last stored check, not the state at call time; null if the service ' +
        'never checked.',
    }),
    taxation: Type.Union([Taxation, Type.Null()], { description: 'Null when unknown.' }),
  },
  {
    title: 'BusinessProfile',
    description: 'Every field is always present: a missing value is null, a missing list empty.',
    additionalProperties: false,
    examples: [SANDBOX_CORPORATION],
  },
);
export type BusinessProfile = Static<typeof BusinessProfile>;

export const ProfileParams = Type.Object(
  {
    businessRegistrationNumber: Type.String({
      maxLength: NUMBER_PARAMETER_LENGTH_MAX,
      description: 'Ten-digit business registration number; hyphens are allowed.',
      examples: ['999-99-00005'],
    }),
  },
  { additionalProperties: false },
);

export const RETRIEVE_DESCRIPTION =
  'Retrieves the profile of one business. A number that is not ten digits once hyphens are ' +
  'removed is 400 INVALID_REQUEST; a checksum mismatch is 400 ' +
  'INVALID_BUSINESS_REGISTRATION_NUMBER; with a test key, a number outside the sandbox list of ' +
  'docs/sandbox.md is 400 INVALID_REQUEST. These are checked before the rate limit of 300 calls ' +
  'per minute per key. A number with no profile is 404 NOT_FOUND. Charge: 90 points per ' +
  'successful retrieval; nothing for any other response.';

export const SearchQuery = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      // Trimmed, the query has 1 to 100 characters (checked by the service); the bound here
      // only keeps the URL short.
      maxLength: 300,
      description: 'Business name, representative name, or business registration number (a ' +
        'full number or a prefix of one, with or without hyphens). Partial names match: ' +
        '`삼성` finds `삼성전자`. 1 to 100 characters once trimmed, no control characters.',
      examples: ['이택스', '999-99'],
    }),
    limit: Type.Integer({
      minimum: 1,
      maximum: SEARCH_LIMIT_MAX,
      default: SEARCH_LIMIT_DEFAULT,
      description: 'Most results on the page.',
    }),
    cursor: Type.Optional(Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The `nextCursor` of the previous page, unchanged; omit for the first page.',
    })),
  },
  { additionalProperties: false },
);

export const SearchPage = Type.Object(
  {
    results: Type.Array(BusinessProfile, {
      description: 'Matching profiles, best first: an exact number, then number prefixes, then ' +
        'name matches by similarity; ties by number.',
    }),
    nextCursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `cursor` for the next page; null on the last page.',
    }),
    hasMore: HasMore,
  },
  {
    title: 'BusinessProfileSearchPage',
    description: 'A page of matching business profiles, best first.',
    additionalProperties: false,
    examples: [{ results: [SANDBOX_CORPORATION], nextCursor: null, hasMore: false }],
  },
);

export const SEARCH_DESCRIPTION =
  'Searches business profiles by business name, representative name, or business registration ' +
  'number (a full number or a prefix, hyphens allowed). Results are ranked — the exact number ' +
  'first, then number prefixes, then names by trigram similarity, ties by number — and paged ' +
  'with an opaque cursor. Test keys search the sandbox profiles of docs/sandbox.md; live keys ' +
  'the profile store. A query empty or longer than 100 characters once trimmed or with a ' +
  'control character, a limit outside 1 to 100, or a cursor this operation did not return is ' +
  '400 INVALID_REQUEST. ' +
  'Charge: 9 points per result returned (an empty page is free); 9 × limit points must be ' +
  'available while the search runs.';
