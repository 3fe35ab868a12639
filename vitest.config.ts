import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/helpers/sequencer.ts';

// Three projects, by what decides how often a test must run (README, "Run the tests"):
// - unit: tests whose outcome does not depend on the database mode (pure functions, config,
//   adapters against fake gateways, the CLI commands that open no database, the embedded
//   database's own socket). CI runs them once.
// - database: tests against the database of the current mode, embedded PGlite or PostgreSQL
//   (DATABASE_URL) with Redis (REDIS_URL). CI runs them in both modes.
// - integration: several `etax serve` processes, crashes and kill -9 (of a server or of a
//   redis-server of the test's own), `etax serve` on databases of its own, and the hosted pages
//   in a real browser. CI runs them once, on PostgreSQL and Redis, where they matter.
// A test file that is in no list below belongs to `database`, the safe default: it runs in
// both modes. Every entry names at least one test file (test/architecture/vitest-projects.test.ts),
// so a test moved or renamed is not left out of its list unnoticed.

export const UNIT = [
  'test/architecture/**/*.test.ts',
  'test/bin/**/*.test.ts',
  'test/bench/**/*.test.ts',
  'test/docs/**/*.test.ts',
  'test/config.test.ts',
  'test/dashboard/i18n.test.ts',
  'test/dashboard/reset-requests.test.ts',
  'test/dashboard/usage-cache.test.ts',
  'test/domain/**/*.test.ts',
  'test/upstream/**/*.test.ts',
  'test/areas/bank/service.test.ts',
  'test/areas/bank-transactions/matching.test.ts',
  'test/areas/businesses/generate.test.ts',
  'test/areas/health/readiness-log.test.ts',
  'test/areas/businesses/import.test.ts',
  'test/areas/certificate-verification/**/*.test.ts',
  'test/areas/issuers/certificate-check.test.ts',
  'test/areas/issuers/signing-thread.test.ts',
  'test/areas/tax-invoices/amendments.test.ts',
  'test/areas/tax-invoices/late-issuance.test.ts',
  'test/areas/tax-invoices/supplier-eligibility.test.ts',
  'test/areas/tax-invoices/pdf*.test.ts',
  'test/areas/tax-invoices/processing/steps.test.ts',
  'test/areas/tax-invoices/validation.test.ts',
  'test/areas/tax-invoices/xml/**/*.test.ts',
  'test/areas/cash-receipts/validation.test.ts',
  'test/areas/cash-receipts/pdf.test.ts',
  'test/areas/documents/owner-rules.test.ts',
  'test/platform/body-rules.test.ts',
  'test/platform/database-unavailable.test.ts',
  'test/platform/data-dir-lock.test.ts',
  'test/platform/due-work.test.ts',
  'test/platform/encryption-key.test.ts',
  'test/platform/embedded-queries.test.ts',
  'test/platform/cursor.test.ts',
  'test/platform/error-table.test.ts',
  'test/platform/lazy-request-logger.test.ts',
  'test/platform/merge-patch.test.ts',
  'test/platform/live-services.test.ts',
  'test/platform/points/balance-reader.test.ts',
  'test/platform/accounts/keys.test.ts',
  'test/platform/points/prices.test.ts',
  'test/platform/points/settle.test.ts',
  'test/platform/response-contract.test.ts',
  'test/platform/route-contract.test.ts',
  'test/platform/validation-messages.test.ts',
  'test/platform/webhooks/**/*.test.ts',
  'test/cli/arguments.test.ts',
  'test/cli/generate-profiles.test.ts',
  'test/cli/sandbox-certificate.test.ts',
  'test/helpers/integration-requirements.test.ts',
  // The MCP tools against the operation table, read from a server of route schemas only.
  'test/mcp/tools.test.ts',
];

export const INTEGRATION = [
  'test/integration/**/*.test.ts',
  // OCR: seconds of CPU per image, and the same in either database mode.
  'test/api/certificate-verification/**/*.test.ts',
  'test/sdk/**/*.test.ts',
  // A desktop agent's `etax mcp`: a client of the API, the same in either database mode.
  'test/mcp/stdio.test.ts',
  'test/cli/serve.test.ts',
  'test/platform/ratelimit/**/*.test.ts',
  // A real Chromium: the hosted pages look the same in either database mode.
  'test/browser/**/*.test.ts',
];

// Every test app checks its responses against openapi/openapi.json; this fails the test that
// made one that breaks it.
const SETUP_FILES = ['test/helpers/response-contract-setup.ts'];

// The projects that open databases share one migrated template per run.
const GLOBAL_SETUP = ['test/helpers/global-setup.ts'];

export default defineConfig({
  // Tests use the SDK's source, as the typecheck does (tsconfig.json paths), never a stale build.
  resolve: { alias: { '@etax/sdk': fileURLToPath(new URL('sdk/src/index.ts', import.meta.url)) } },
  test: {
    pool: 'forks',
    // Two at a time suits the 2-core machines we run on.
    maxWorkers: 2,
    // A worker runs its test files one after another in one module cache instead of loading the
    // app's modules again for every file: loading them took longer than many files' tests.
    // Each file still makes its own app on its own database, and no test mocks a module that
    // another file loads (test/upstream/tax-invoices/sandbox.test.ts replaces timers only for
    // its own fake timers, and its stand-in behaves like the real one otherwise).
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
    setupFiles: SETUP_FILES,
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'database',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...INTEGRATION],
          globalSetup: GLOBAL_SETUP,
        },
      },
      {
        extends: true,
        test: { name: 'integration', include: INTEGRATION,
          // With CI set, a missing PostgreSQL or Redis fails the run instead of skipping tests.
          globalSetup: ['test/helpers/integration-requirements.ts', ...GLOBAL_SETUP] },
      },
    ],
  },
});
