import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform, Platform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createSandboxProfiles } from '../../upstream/business-profiles/sandbox.ts';
import type { TaxAuthorities } from '../../upstream/tax-authority/adapters.ts';
import { registerBusinessRoutes } from './profiles/routes.ts';
import { createSandboxProfileSearch } from './profiles/search.ts';
import {
  createBusinessesService,
  createStoreProfiles,
  createStoreProfileSearch,
  type BusinessesService,
} from './profiles/service.ts';
import { registerRegistrationStatusRoutes } from './registration-status/routes.ts';
import {
  createRegistrationStatusService,
  type RegistrationStatusService,
} from './registration-status/service.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const BUSINESS_PROFILES_REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Business profiles',
    description: 'Profiles of Korean businesses.',
    guides: [
      { path: 'docs/business-profiles.md', title: 'Business profiles' },
    ],
  },
];

// The sections of the API reference its operations belong to (docs/architecture.md).
const REGISTRATION_STATUS_REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Business registration status',
    description: 'Registration state and tax type at call time, from the tax authority.',
    guides: [
      { path: 'docs/registration-status.md', title: 'Business registration status' },
    ],
  },
];

// Businesses: what is known about a business by its registration number. Two capabilities,
// each a module of its own over the same tables (tables.ts):
//
//   profiles/              profile retrieval and search (docs/business-profiles.md), the
//                          profile store and its import/generate tools (etax import profiles)
//   registration-status/   status and tax type now, from the tax authority's public API
//                          (docs/registration-status.md); live answers are written back to the
//                          profile store

// What `etax import profiles` and `etax generate profiles` use: validating and loading profile
// records in batches, and the deterministic synthetic data set.
export {
  IMPORT_BATCH_SIZE,
  PROFILE_COLUMNS,
  importProfileBatch,
  isProfileColumn,
  validateProfileRecord,
  type RawRecord,
  type ValidProfile,
} from './profiles/import.ts';
export {
  GENERATE_COUNT_MAX,
  csvHeader,
  formatProfileRecord,
  generateProfiles,
  seedFromText,
  type ProfileFileFormat,
} from './profiles/generate.ts';

export type { BusinessesService, RegistrationStatusService };
// The API's body of the bulk status check, so the dashboard refuses what the API refuses.
export { BulkBody as RegistrationStatusBulkBody } from './registration-status/schemas.ts';

export type BusinessProfilesModule = AreaModule & { service: BusinessesService };
export type RegistrationStatusModule = AreaModule & { service: RegistrationStatusService };

// Test keys read the sandbox profiles and live keys the profile store; both are built once.
export function createBusinessProfilesModule(platform: AreaPlatform): BusinessProfilesModule {
  const { db, preparedStatements } = platform.database;
  const sandbox = createSandboxProfiles();
  const live = createStoreProfiles(db);
  const sandboxSearch = createSandboxProfileSearch();
  const liveSearch = createStoreProfileSearch(db, { preparedStatements });
  const service = createBusinessesService({
    charge: platform.charge,
    profilesFor: (environment) => (environment === 'live' ? live : sandbox),
    searchFor: (environment) => (environment === 'live' ? liveSearch : sandboxSearch),
    cursors: platform.cursors,
  });
  return {
    name: 'business-profiles',
    reference: BUSINESS_PROFILES_REFERENCE,
    routes: async (v1) => v1.register(registerBusinessRoutes, { businesses: service }),
    service,
  };
}

// Test keys ask the sandbox and live keys the public API (the process's shared adapters).
export function createRegistrationStatusModule(platform: Platform,
  deps: { taxAuthorities: TaxAuthorities }): RegistrationStatusModule {
  const { config } = platform;
  const { taxAuthorities } = deps;
  const service = createRegistrationStatusService({
    charge: platform.charge,
    authorityFor: taxAuthorities.statusFor,
    authorityConfigured: (environment) => environment === 'test' ||
      taxAuthorities.liveStatusConfigured,
    db: platform.database.db,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
    now: platform.outside.now,
  });
  return {
    name: 'registration-status',
    reference: REGISTRATION_STATUS_REFERENCE,
    routes: async (v1) => v1.register(registerRegistrationStatusRoutes,
      { registrationStatuses: service }),
    service,
  };
}
