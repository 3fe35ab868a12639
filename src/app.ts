import type { FastifyInstance } from 'fastify';
import pino, { type DestinationStream, type Logger } from 'pino';
import { createBankService, type BankService } from './areas/bank/service.ts';
import {
  createBusinessesService,
  createStoreProfiles,
  createStoreProfileSearch,
  type BusinessesService,
} from './areas/businesses/service.ts';
import { createSandboxProfileSearch } from './areas/businesses/search.ts';
import {
  createRegistrationStatusService,
  type RegistrationStatusService,
} from './areas/businesses/registration-status.ts';
import { createWebhooksService, type WebhooksService } from './areas/webhooks/service.ts';
import { loadCertificateEncryptionKey } from './areas/issuers/encryption-key.ts';
import { createIssuersService, type IssuersService } from './areas/issuers/service.ts';
import {
  createTaxInvoicesModule,
  type TaxInvoicesModule,
} from './areas/tax-invoices/index.ts';
import type { Config } from './config.ts';
import { createSealingKey } from './domain/sealed-box.ts';
import { createAccountsService, type AccountsService } from './platform/accounts/service.ts';
import { createKeyCache } from './platform/auth.ts';
import { connectDatabase, type Database } from './platform/db/connect.ts';
import {
  committedMigrationCount,
  migrationsApplied,
  runMigrations,
} from './platform/db/migrate.ts';
import { createJobs, type JobDefinition, type Jobs } from './platform/jobs.ts';
import { systemOutside } from './platform/outside.ts';
import { createMailQueuer, type QueueMail } from './platform/mail/outbox.ts';
import { mailJobDefinition } from './platform/mail/send-job.ts';
import { createSmtpTransport } from './platform/mail/transport.ts';
import { createPointsService, type PointsService } from './platform/points/service.ts';
import { buildPriceTable, type PriceTable } from './platform/points/prices.ts';
import { createCharger, type Charger } from './platform/points/charge.ts';
import { expireReservationsJobDefinition } from './platform/points/expire-job.ts';
import { buildRateLimitPolicies, createRateLimiter } from './platform/ratelimit.ts';
import {
  createDeliverer,
  deliveryJobDefinition,
  type Deliverer,
} from './platform/webhooks/delivery-job.ts';
import {
  createDeliveryQueuer,
  createEventRecorder,
  oneAtATime,
} from './platform/webhooks/events.ts';
import type { RecordEvent, RecordEvents } from './platform/events.ts';
import { resolveWithSystem, type ResolveHost } from './platform/webhooks/target-policy.ts';
import { buildServer, type ServerDeps } from './server.ts';
import { createLiveBanks } from './upstream/banks/live.ts';
import { createSandboxBanks } from './upstream/banks/sandbox.ts';
import { createSandboxProfiles } from './upstream/business-profiles/sandbox.ts';
import type { TaxAuthority } from './upstream/tax-authority/index.ts';
import { createLiveTaxAuthority } from './upstream/tax-authority/live.ts';
import { createSandboxTaxAuthority } from './upstream/tax-authority/sandbox.ts';

// Wires the process together: database, migrations, services, jobs and the HTTP server. The CLI
// commands use the same pieces without the server (openPlatform).

export type Platform = {
  config: Config;
  log: Logger;
  database: Database;
  accounts: AccountsService;
  points: PointsService;
  prices: PriceTable;
  // Reserve → work → capture/release, priced from the price table (platform/points/charge.ts).
  charge: Charger;
  close(): Promise<void>;
};

// Secrets a request body may carry (certificate passwords and key files, docs/issuers.md) are
// censored wherever a logged object holds them.
export const LOG_REDACT_PATHS = [
  'password', '*.password', '*.*.password', 'signPri', '*.signPri', '*.*.signPri',
];

export function createLogger(config: Config, destination?: DestinationStream): Logger {
  const options = { level: config.LOG_LEVEL, base: { service: 'etax' },
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export async function openPlatform(config: Config, log: Logger): Promise<Platform> {
  const prices = buildPriceTable(config.PRICE_OVERRIDES);
  const database = await connectDatabase({
    databaseUrl: config.DATABASE_URL,
    dataDir: config.DATA_DIR,
    poolMax: config.DB_POOL_MAX,
  });
  try {
    await runMigrations(database.pool);
  } catch (error) {
    await database.close();
    throw error;
  }
  const points = createPointsService({
    db: database.db,
    relaxedPool: database.relaxedPool,
    reservationTtlMs: config.RESERVATION_TTL_MS,
    preparedStatements: !database.embedded,
  });
  const accounts = createAccountsService({
    db: database.db,
    points,
    testSignupPoints: config.TEST_SIGNUP_POINTS,
  });
  const charge = createCharger(points, prices);
  return { config, log, database, accounts, points, prices, charge, close: () => database.close() };
}

export type App = {
  platform: Platform;
  server: FastifyInstance;
  jobs: Jobs;
  webhooks: Webhooks;
  // What tax-invoice work calls: resolveSupplierKey and requireIssuerCertificate.
  issuers: IssuersService;
  taxInvoices: TaxInvoicesModule;
  close(): Promise<void>;
};

// Webhooks: the management service, the recorder areas call in their transactions, and the
// delivery worker (docs/webhooks.md).
export type Webhooks = {
  service: WebhooksService;
  recordEvent: RecordEvent;
  recordEvents: RecordEvents;
  deliverer: Deliverer;
};

// Mail (docs/operations.md § Mail): the outbox areas queue mails into, in their transactions,
// and the job that sends them through SMTP_URL. Without SMTP_URL mails are kept, not sent.
export type Mail = {
  queueMail: QueueMail;
  jobDefinition: JobDefinition;
  close(): void;
};

// Replace the clock, randomness and DNS of webhook delivery (tests).
export type WebhookOverrides = {
  now?: () => Date;
  random?: () => number;
  resolveHost?: ResolveHost;
};

type AppOptions = {
  jobs?: boolean;
  logRequests?: boolean;
  extraRoutes?: ServerDeps['extraRoutes'];
  // Replaces the live tax authority built from the configuration (tests).
  liveTaxAuthority?: TaxAuthority;
  webhooks?: WebhookOverrides;
  // The clock of time-bound rules such as registration link expiry (tests).
  clock?: () => Date;
  // Where logs go instead of stdout (tests).
  logDestination?: DestinationStream;
};

// Test keys always reach the sandbox and live keys the gateway; both adapters are built once.
export function buildBankService(config: Config, charge: Charger): BankService {
  const sandbox = createSandboxBanks({ latencyMs: config.BANK_SANDBOX_LATENCY_MS });
  const live = createLiveBanks({
    gatewayUrl: config.BANK_GATEWAY_URL,
    timeoutMs: config.BANK_LOOKUP_TIMEOUT_MS,
  });
  return createBankService({
    charge,
    banksFor: (environment) => (environment === 'live' ? live : sandbox),
    concurrency: config.BANK_LOOKUP_CONCURRENCY,
    timeoutMs: config.BANK_LOOKUP_TIMEOUT_MS,
  });
}

// Test keys read the sandbox profiles and live keys the profile store; both are built once.
export function buildBusinessesService(platform: Platform): BusinessesService {
  const sandbox = createSandboxProfiles();
  const live = createStoreProfiles(platform.database.db);
  const sandboxSearch = createSandboxProfileSearch();
  const liveSearch = createStoreProfileSearch(platform.database.db,
    { preparedStatements: !platform.database.embedded });
  return createBusinessesService({
    charge: platform.charge,
    profilesFor: (environment) => (environment === 'live' ? live : sandbox),
    searchFor: (environment) => (environment === 'live' ? liveSearch : sandboxSearch),
  });
}

// Test keys ask the sandbox and live keys the public API; live results are stored back into
// the profile store (docs/registration-status.md). Both adapters are built once.
export function buildRegistrationStatusService(
  platform: Platform,
  liveOverride?: TaxAuthority,
): RegistrationStatusService {
  const { config } = platform;
  const sandbox = createSandboxTaxAuthority({ latencyMs: config.TAX_AUTHORITY_SANDBOX_LATENCY_MS });
  const live = liveOverride ?? createLiveTaxAuthority({
    baseUrl: config.TAX_AUTHORITY_BASE_URL,
    serviceKey: config.TAX_AUTHORITY_SERVICE_KEY,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
  });
  return createRegistrationStatusService({
    charge: platform.charge,
    authorityFor: (environment) => (environment === 'live' ? live : sandbox),
    db: platform.database.db,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
  });
}

// One delivery queuer serves the resend operation and the worker's retries; the recorder stages
// the first attempts of new events itself, all in one statement (docs/webhooks.md).
export function buildWebhooks(
  platform: Platform,
  jobs: Jobs,
  overrides: WebhookOverrides = {},
): Webhooks {
  const { config } = platform;
  const queueDelivery = createDeliveryQueuer(jobs.stage);
  const recordEvents = createEventRecorder(jobs.stageMany);
  const resolveHost = overrides.resolveHost ?? resolveWithSystem;
  const privateTargetsAllowed = config.WEBHOOK_PRIVATE_TARGETS_ALLOWED;
  return {
    service: createWebhooksService({
      db: platform.database.db, queueDelivery, resolveHost, privateTargetsAllowed,
    }),
    recordEvent: oneAtATime(recordEvents),
    recordEvents,
    deliverer: createDeliverer({
      db: platform.database.db,
      queueDelivery,
      timeoutMs: config.WEBHOOK_DELIVERY_TIMEOUT_MS,
      privateTargetsAllowed,
      resolveHost,
      now: overrides.now ?? (() => new Date()),
      random: overrides.random ?? Math.random,
      log: platform.log,
    }),
  };
}

// Issuers and their joint certificates (docs/issuers.md); certificate keys are sealed with the
// configured or generated key. The outcome of every registration attempt is also a webhook event
// (CERTIFICATE_REGISTRATION_SUCCESS or _FAILURE), recorded in the transaction that appends the
// history record; a deregistration, which the client asked for itself, is not an event.
export async function buildIssuersService(
  platform: Platform,
  jobs: Jobs,
  options: { clock?: () => Date; recordEvent: RecordEvent },
): Promise<IssuersService> {
  const { config } = platform;
  const key = await loadCertificateEncryptionKey({
    configured: config.CERTIFICATE_ENCRYPTION_KEY,
    dataDir: config.DATA_DIR,
    sharedDatabase: !platform.database.embedded,
    log: platform.log,
  });
  return createIssuersService({
    db: platform.database.db,
    stage: jobs.stage,
    sealing: createSealingKey(key),
    publicBaseUrl: config.PUBLIC_BASE_URL,
    log: platform.log,
    now: options.clock,
    async onRegistrationRecorded(tx, scope, record) {
      if (record.code === 'DEREGISTERED') return;
      await options.recordEvent(tx, scope, {
        type: record.code === 'REGISTERED'
          ? 'CERTIFICATE_REGISTRATION_SUCCESS'
          : 'CERTIFICATE_REGISTRATION_FAILURE',
        data: record,
      });
    },
  });
}

export function buildMail(platform: Platform, jobs: Jobs, clock?: () => Date): Mail {
  const { config } = platform;
  // loadConfig refuses SMTP_URL without MAIL_FROM.
  const transport = config.SMTP_URL === undefined ? null
    : createSmtpTransport({ url: config.SMTP_URL, from: config.MAIL_FROM! });
  return {
    queueMail: createMailQueuer({ stage: jobs.stage, sendingEnabled: transport !== null }),
    jobDefinition: mailJobDefinition({ db: platform.database.db, transport,
      now: clock ?? (() => new Date()), log: platform.log }) as JobDefinition,
    close: () => transport?.close(),
  };
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const log = createLogger(config, options.logDestination);
  const platform = await openPlatform(config, log);
  const rateLimiter = createRateLimiter({
    redisUrl: config.REDIS_URL,
    policies: buildRateLimitPolicies(config.RATE_LIMIT_OVERRIDES),
  });
  const jobs = createJobs({ databaseUrl: platform.database.url, pool: platform.database.pool,
    workersEnabled: config.WORKERS_ENABLED, log });
  const bank = buildBankService(config, platform.charge);
  const businesses = buildBusinessesService(platform);
  const registrationStatuses = buildRegistrationStatusService(platform, options.liveTaxAuthority);
  const webhooks = buildWebhooks(platform, jobs, options.webhooks);
  const issuers = await buildIssuersService(platform, jobs,
    { clock: options.clock, recordEvent: webhooks.recordEvent });
  const mail = buildMail(platform, jobs, options.clock);
  // The module takes the platform of src/platform/platform.ts, assembled here from the pieces
  // above until this file opens that platform itself.
  const taxInvoices = createTaxInvoicesModule({ ...platform, jobs, queueMail: mail.queueMail,
    outside: systemOutside(options.clock ? { now: options.clock } : {}), jobDefinitions: [] },
  { issuers, recordEvents: webhooks.recordEvents });
  if (options.jobs ?? true) {
    await jobs.start([
      ...taxInvoices.jobs,
      expireReservationsJobDefinition(platform.points, log),
      deliveryJobDefinition(webhooks.deliverer, config.WEBHOOK_DELIVERY_TIMEOUT_MS),
      ...issuers.jobDefinitions(),
      mail.jobDefinition,
    ]);
  }
  const expectedMigrations = await committedMigrationCount();
  const server = await buildServer({
    logger: options.logRequests === false ? false : log,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    keys: createKeyCache(platform.accounts, config.AUTH_CACHE_TTL_MS),
    rateLimiter,
    points: platform.points,
    bank,
    businesses,
    registrationStatuses,
    webhooks: webhooks.service,
    issuers,
    taxInvoices,
    extraRoutes: options.extraRoutes,
    readiness: async () => {
      await platform.database.pool.query('select 1');
      const applied = await migrationsApplied(platform.database.pool, expectedMigrations);
      return { database: true, migrations: applied };
    },
  });
  return {
    platform,
    server,
    jobs,
    webhooks,
    issuers,
    taxInvoices,
    // Stop taking requests and finish those in flight, then stop jobs, then the database.
    async close() {
      await server.close();
      await jobs.stop();
      mail.close();
      await webhooks.deliverer.close();
      await rateLimiter.close();
      await platform.close();
    },
  };
}
