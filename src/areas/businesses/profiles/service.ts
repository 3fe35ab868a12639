import assert from 'node:assert/strict';
import {
  businessRegistrationNumberDefect,
  hasValidChecksum,
  normalizeBusinessRegistrationNumber,
} from '../../../domain/business-registration-number.ts';
import { findKsicSection } from '../../../domain/ksic.ts';
import type { Environment } from '../../../platform/accounts/keys.ts';
import type { PageCursors } from '../../../platform/cursor.ts';
import type { Db, Executor } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Charger } from '../../../platform/points/charge.ts';
import type { Scope } from '../../../platform/scope.ts';
import type {
  BusinessKind,
  BusinessProfile,
  ProfileLookupResult,
  ProfileSource,
  RegistrationStatus,
  TaxType,
} from '../../../upstream/business-profiles/index.ts';
import { isSandboxBusinessNumber } from '../../../upstream/business-profiles/sandbox.ts';
import {
  decodeSearchCursor,
  encodeSearchCursor,
  parseSearchQuery,
  type ProfileSearch,
} from './search.ts';
import {
  findProfileRow,
  searchProfileRows,
  type FormerNameRow,
  type ProfileColumns,
} from './store.ts';

// Business profile retrieval (docs/business-profiles.md). The phases of one request:
//   1. check the number (checkNumber): ten digits once hyphens are removed, else 400
//      INVALID_REQUEST; a matching checksum, else 400 INVALID_BUSINESS_REGISTRATION_NUMBER; with
//      a test key, one of the sandbox numbers, else 400 INVALID_REQUEST. The route runs this
//      before the rate limit, so refused numbers are not counted (docs/errors.md § Order of
//      checks);
//   2. check that 90 points are available (402/409 by the reservation rule);
//   3. read the profile from the key's source: the sandbox for test keys, the store for live;
//   4. debit the 90 points for a profile (402/409 if they were spent meanwhile); a 404 or 503
//      debits nothing, so only a 200 charges. Both sources are etax's own data, so the work
//      runs before the points move (charge.ts, localWork).

const PRICE_ROW = 'businesses.profiles.retrieve';
// Profile search (docs/business-profiles.md § Search profiles): 9 points per result the page may
// hold (limit) must be available, 9 per result returned are debited; an empty page charges nothing.
const SEARCH_PRICE_ROW = 'businesses.profiles.search';

type SearchProfilesOptions = {
  caller: Scope;
  query: string;
  limit: number;
  cursor?: string | undefined;
};
type SearchProfilesPage = { results: BusinessProfile[]; nextCursor: string | null };

type BusinessesServiceDeps = {
  charge: Charger;
  // The profile source of an environment: test keys get the sandbox, live keys the store.
  profilesFor: (environment: Environment) => ProfileSource;
  // The search source of an environment: test keys search the sandbox, live keys the store.
  searchFor: (environment: Environment) => ProfileSearch;
  cursors: PageCursors;
};

type CheckNumberOptions = { environment: Environment; businessRegistrationNumber: string };

// Returns the ten-digit number, or throws the 400 that answers it.
function checkNumber({ environment, businessRegistrationNumber }: CheckNumberOptions) {
  const digits = normalizeBusinessRegistrationNumber(businessRegistrationNumber);
  if (digits === null) {
    throw new ApiError(
      'INVALID_REQUEST',
      'params.businessRegistrationNumber must have ten digits once hyphens are removed.',
    );
  }
  if (!hasValidChecksum(digits)) throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER');
  const defect = businessRegistrationNumberDefect(digits);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `params.businessRegistrationNumber ${defect}.`);
  }
  if (environment === 'test' && !isSandboxBusinessNumber(digits)) {
    throw new ApiError(
      'INVALID_REQUEST',
      'params.businessRegistrationNumber is not a sandbox test number; test keys retrieve only ' +
        'the numbers listed in docs/sandbox.md.',
    );
  }
  return digits;
}

// The profile of a lookup result, or the error response that answers it. Each throw releases
// the reservation.
function profileOrThrow(result: ProfileLookupResult): BusinessProfile {
  switch (result.kind) {
    case 'found':
      return result.profile;
    case 'notFound':
      throw new ApiError('NOT_FOUND', 'There is no business profile for this number.');
    case 'unavailable':
      throw new ApiError('LOOKUP_UNAVAILABLE');
    case 'communicationFailed':
      throw new ApiError('SERVICE_UNAVAILABLE');
  }
}

export function createBusinessesService(deps: BusinessesServiceDeps) {
  type RetrieveOptions = { caller: Scope; businessRegistrationNumber: string };

  // Retrieves one profile; the number may contain hyphens.
  async function retrieveProfile(input: RetrieveOptions): Promise<BusinessProfile> {
    const digits = checkNumber({
      environment: input.caller.environment,
      businessRegistrationNumber: input.businessRegistrationNumber,
    });
    const profiles = deps.profilesFor(input.caller.environment);
    const { value } = await deps.charge(
      { scope: input.caller, operation: PRICE_ROW, unitsMax: 1, localWork: true },
      async () => {
        const profile = profileOrThrow(await profiles.findProfile(digits));
        assert.equal(profile.businessRegistrationNumber, digits);
        return { value: profile, chargedUnits: 1 };
      },
    );
    return value;
  }

  // One page of search results; the query and cursor are checked before any points move.
  async function searchProfiles(input: SearchProfilesOptions): Promise<SearchProfilesPage> {
    const { text, digits } = parseSearchQuery(input.query);
    const after = input.cursor === undefined ? null
      : decodeSearchCursor(deps.cursors, input.caller, input.cursor);
    const search = deps.searchFor(input.caller.environment);
    const { value } = await deps.charge(
      { scope: input.caller, operation: SEARCH_PRICE_ROW, unitsMax: input.limit, localWork: true },
      async () => {
        // One row past the page tells whether another page follows.
        const ranked = await search({ text, digits, after, limit: input.limit + 1 });
        const page = ranked.slice(0, input.limit);
        const last = page.at(-1);
        const nextCursor = ranked.length > input.limit && last !== undefined
          ? encodeSearchCursor(deps.cursors, input.caller, last.rank)
          : null;
        const results = page.map((entry) => entry.profile);
        return { value: { results, nextCursor }, chargedUnits: results.length };
      },
    );
    return value;
  }

  return { checkNumber, retrieveProfile, searchProfiles };
}

export type BusinessesService = ReturnType<typeof createBusinessesService>;

// The profile object of a stored profile. The address is null when all four address columns
// are null; the category name comes from the KSIC section table.
function profileFromRow(row: ProfileColumns, formerNames: FormerNameRow[]) {
  const address = [row.roadAddress, row.postalCode, row.sidoCode, row.sigunguCode]
    .every((value) => value === null)
    ? null
    : {
        roadAddress: row.roadAddress,
        postalCode: row.postalCode,
        sidoCode: row.sidoCode,
        sigunguCode: row.sigunguCode,
      };
  const section = row.categoryCode === null ? null : findKsicSection(row.categoryCode);
  assert(row.categoryCode === null || section !== null, 'the database allows sections A to U');
  const profile: BusinessProfile = {
    businessRegistrationNumber: row.businessRegistrationNumber,
    corporateRegistrationNumber: row.corporateRegistrationNumber,
    businessKind: row.businessKind as BusinessKind | null,
    commercialSalesNumber: row.commercialSalesNumber,
    organizationName: row.organizationName,
    organizationNameEnglish: row.organizationNameEnglish,
    formerOrganizationNames: formerNames.map(({ name, changedOn }) => ({ name, changedOn })),
    representativeName: row.representativeName,
    address,
    contact: { phone: row.phone, email: row.email, websites: [...row.websites] },
    industry: {
      businessType: row.businessType,
      businessItem: row.businessItem,
      standardIndustry: row.standardIndustryCode === null
        ? null
        : { code: row.standardIndustryCode, name: row.standardIndustryName ?? '' },
      category: section === null ? null : { code: section.code, name: section.nameKorean },
    },
    openedOn: row.openedOn,
    businessRegisteredOn: row.businessRegisteredOn,
    corporationEstablishedOn: row.corporationEstablishedOn,
    registration: registrationOf(row),
    taxation: row.taxationType === null ? null : { type: row.taxationType as TaxType },
  };
  return profile;
}

function registrationOf(row: ProfileColumns): BusinessProfile['registration'] {
  if (row.registrationStatus === null) return null;
  assert(row.registrationCheckedAt !== null, 'the database pairs status and check time');
  return {
    status: row.registrationStatus as RegistrationStatus,
    closedOn: row.registrationClosedOn,
    checkedAt: row.registrationCheckedAt.toISOString(),
  };
}

// The profile source of live keys: the profile store. A missing row is notFound (404).
export function createStoreProfiles(db: Executor): ProfileSource {
  return {
    async findProfile(businessRegistrationNumber) {
      const found = await findProfileRow(db, businessRegistrationNumber);
      if (found === null) return { kind: 'notFound' };
      return { kind: 'found', profile: profileFromRow(found.profile, found.formerNames) };
    },
  };
}

// The search source of live keys: the profile store, ranked in SQL (store.ts).
export function createStoreProfileSearch(
  db: Db,
  options: { preparedStatements: boolean },
): ProfileSearch {
  const statementName = options.preparedStatements ? 'businesses_profile_search' : undefined;
  return async (search) => {
    const rows = await searchProfileRows(db, search, statementName);
    return rows.map((row) => ({
      profile: profileFromRow(row.profile, row.formerNames),
      rank: row.rank,
    }));
  };
}
