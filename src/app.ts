import type { FastifyInstance } from 'fastify';
import type { BankService } from './areas/bank/index.ts';
import type { BusinessesService, RegistrationStatusService } from './areas/businesses/index.ts';
import { createBankModule } from './areas/bank/index.ts';
import {
  createBankTransactionsModule,
  type BankTransactionsModule,
} from './areas/bank-transactions/index.ts';
import { createCashReceiptsModule, type CashReceiptsModule } from './areas/cash-receipts/index.ts';
import {
  createBusinessProfilesModule,
  createRegistrationStatusModule,
} from './areas/businesses/index.ts';
import { createCertificateVerificationModule } from './areas/certificate-verification/index.ts';
import { createConnectionsModule, type ConnectionsModule } from './areas/connections/index.ts';
import {
  createCounterpartiesModule,
  type CounterpartiesModule,
} from './areas/counterparties/index.ts';
import { createDraftsModule, type DraftsModule } from './areas/drafts/index.ts';
import { createDocumentsModule, type DocumentsModule } from './areas/documents/index.ts';
import { createHealthModule } from './areas/health/index.ts';
import { createIssuersModule, type IssuersService } from './areas/issuers/index.ts';
import { createPointsModule, type LedgerPages } from './areas/points/index.ts';
import {
  createRevenueExpensesModule,
  type RevenueExpensesModule,
} from './areas/revenue-expenses/index.ts';
import { createTaxInvoicesModule, type TaxInvoicesModule } from './areas/tax-invoices/index.ts';
import { createWebhooksModule, type WebhooksModule } from './areas/webhooks/index.ts';
import { trustProxySetting, type Config } from './config.ts';
import type { DashboardAreas } from './dashboard/context.ts';
import { dashboardPlugin } from './dashboard/mount.ts';
import { mcpPlugin } from './mcp/mount.ts';
import type { SealingKey } from './domain/sealed-box.ts';
import { createKeyCache } from './platform/auth.ts';
import { createPageCursors, type PageCursors } from './platform/cursor.ts';
import { createTaxAuthorities } from './upstream/tax-authority/adapters.ts';
import { createDueWorkRunner } from './platform/due-work.ts';
import { loadSealingKey } from './platform/encryption-key.ts';
import { jobQueueBacklogs, mailOutboxPending } from './platform/metrics/backlogs.ts';
import type { Jobs } from './platform/jobs.ts';
import type { AreaModule } from './platform/module.ts';
import { systemOutside, type Outside } from './platform/outside.ts';
import { openPlatform, type AreaPlatform, type Platform } from './platform/platform.ts';
import { createRateLimiter, type AttemptCounter } from './platform/ratelimit/limiter.ts';
import { buildRateLimitPolicies } from './platform/ratelimit/policies.ts';
import { buildServer } from './server.ts';

// The composition root (docs/architecture.md): the platform, then every area module, then the
// server. A module takes the platform and the modules it needs, so the order below is the order
// of their dependencies; the list is also the order of the OpenAPI document.

export type AreaModules = {
  list: AreaModule[];
  // The modules other code reaches by name: tests, the CLI and the modules that need them.
  webhooks: WebhooksModule;
  issuers: IssuersService;
  taxInvoices: TaxInvoicesModule;
  connections: ConnectionsModule;
  revenueExpenses: RevenueExpensesModule;
  bankTransactions: BankTransactionsModule;
  cashReceipts: CashReceiptsModule;
  drafts: DraftsModule;
  documents: DocumentsModule;
  counterparties: CounterpartiesModule;
  // The key that seals what the areas keep at rest (for tests that read what they sealed), and
  // the page cursors sealed with a key derived from it.
  sealing: SealingKey;
  // The charged lookups, for the dashboard's lookups page.
  lookups: { businessProfiles: BusinessesService; registrationStatus: RegistrationStatusService;
    bankHolders: BankService };
  cursors: PageCursors;
  // The points ledger a page at a time, for the dashboard's points page.
  pointsLedger: LedgerPages;
};

export type AreaModulesOptions = {
  // The counters of the server's rate limiter, for limits that are not an operation's (failed
  // logins on the hosted connection page). Commands that serve no pages leave it out, and get
  // counters in memory.
  attempts?: AttemptCounter;
};

export async function createAreaModules(platform: Platform, options: AreaModulesOptions = {}):
  Promise<AreaModules> {
  const { config, database, log } = platform;
  // One key seals every secret at rest: certificate keys, webhook signing secrets, connection
  // credentials and bank account numbers, cash receipts' identity numbers; a key derived from it
  // seals page cursors.
  const sealing = await loadSealingKey({
    configured: config.ENCRYPTION_KEY,
    previous: config.ENCRYPTION_PREVIOUS_KEYS,
    dataDir: config.DATA_DIR,
    sharedDatabase: !database.embedded,
    log,
  });
  const cursors = createPageCursors(sealing);
  const areaPlatform: AreaPlatform = { ...platform, sealing, cursors };
  // One set of the tax authority's adapters for the areas that ask it.
  const taxAuthorities = createTaxAuthorities(config, platform.outside);
  const webhooks = createWebhooksModule(areaPlatform, { sealing });
  const issuers = await createIssuersModule(areaPlatform,
    { recordEvent: webhooks.recordEvent, sealing });
  // Connections seal their credentials with the same key; the books collect through them and
  // record every invoice issued here.
  const connections = createConnectionsModule(areaPlatform, { sealing, issuers: issuers.service,
    attempts: options.attempts });
  const revenueExpenses = createRevenueExpensesModule(areaPlatform, { connections });
  // The counterparty book checks statuses through the registration status lookup, and issuance
  // takes the recipient of an invoice that names a counterparty from it.
  const registrationStatus = createRegistrationStatusModule(areaPlatform, { taxAuthorities });
  const counterparties = createCounterpartiesModule(areaPlatform,
    { registrationStatus: registrationStatus.service });
  const taxInvoices = createTaxInvoicesModule(areaPlatform, {
    issuers: issuers.service,
    recordEvents: webhooks.recordEvents,
    recordIssuedInvoices: revenueExpenses.recordIssuedInvoices,
    recipientOf: counterparties.service.recipientOf,
    taxAuthorities,
  });
  // Bank transactions sync through BANK_ACCOUNT connections and hint at the issued invoices a
  // deposit may pay.
  const bankTransactions = createBankTransactionsModule(areaPlatform, { connections,
    recordEvents: webhooks.recordEvents, issuedByTotals: taxInvoices.issuedByTotals,
    collectedSalesByTotals: revenueExpenses.collectedSalesByTotals });
  const cashReceipts = createCashReceiptsModule(areaPlatform, {
    issuers: issuers.service,
    recordEvents: webhooks.recordEvents,
    sealing,
  });
  // Drafts are issued by the areas that issue their kind of document.
  const drafts = createDraftsModule(areaPlatform, { issuers: issuers.service,
    taxInvoices: taxInvoices.service,
    cashReceipts: cashReceipts.service, recordEvents: webhooks.recordEvents });
  const documents = createDocumentsModule(areaPlatform,
    { issuers: issuers.service, recordEvent: webhooks.recordEvent,
      registrationStatusOf: taxInvoices.registrationStatusOf });
  const points = createPointsModule(areaPlatform);
  const bank = createBankModule(areaPlatform);
  const businessProfiles = createBusinessProfilesModule(areaPlatform);
  const list = [
    await createHealthModule(areaPlatform),
    points,
    bank,
    businessProfiles,
    registrationStatus,
    createCertificateVerificationModule(areaPlatform, { taxAuthorities }),
    webhooks,
    issuers,
    taxInvoices,
    connections,
    revenueExpenses,
    bankTransactions,
    cashReceipts,
    drafts,
    documents,
    counterparties,
  ];
  return { list, webhooks, issuers: issuers.service, taxInvoices, connections, revenueExpenses,
    bankTransactions, cashReceipts, drafts, documents, counterparties, sealing, cursors,
    pointsLedger: points.ledger,
    lookups: { businessProfiles: businessProfiles.service,
      registrationStatus: registrationStatus.service, bankHolders: bank.service } };
}

export type App = Omit<AreaModules, 'list'> & {
  platform: Platform;
  server: FastifyInstance;
  jobs: Jobs;
  // Creates the job queues and, where WORKERS_ENABLED, starts working them: the platform's and
  // every module's. Until then the app serves requests and stages jobs, but runs none.
  start(): Promise<void>;
  // Stops taking requests and finishes those in flight, then stops the jobs, then the modules,
  // then the platform.
  close(): Promise<void>;
};

export type AppOptions = {
  // The clock, resolver, log destination or live authorities to use instead of the system's.
  outside?: Partial<Outside>;
  // Modules of an application that embeds etax, mounted after etax's own under the same
  // authentication, rate limits and operation table.
  extraModules?: (platform: Platform) => AreaModule[];
  // Hooks on the server that run for every route (ServerDeps.instrument).
  instrument?: (server: FastifyInstance) => void;
};

// What the dashboard's pages reach of the areas: each area's services, through its index.ts.
function dashboardAreas(named: Omit<AreaModules, 'list'>): DashboardAreas {
  return { taxInvoices: named.taxInvoices.service,
    reverseIssuance: named.taxInvoices.reverseIssuance,
    invoiceMail: named.taxInvoices.invoiceMail, taxInvoiceXml: named.taxInvoices.xml,
    taxInvoiceBulks: named.taxInvoices.bulks, cashReceiptBulks: named.cashReceipts.bulks,
    taxInvoiceAttachments: named.taxInvoices.attachments,
    webhooks: named.webhooks.service, owners: named.documents.owners,
    issuers: named.issuers,
    connections: named.connections.service, connectionLinks: named.connections.links,
    revenueExpenses: named.revenueExpenses.service,
    bankTransactions: named.bankTransactions.service,
    cashReceipts: named.cashReceipts.service, documents: named.documents.service,
    taxInvoiceDrafts: named.drafts.taxInvoiceDrafts,
    cashReceiptDrafts: named.drafts.cashReceiptDrafts, draftApproval: named.drafts.approval,
    pointsLedger: named.pointsLedger, counterparties: named.counterparties.service,
    ...named.lookups };
}

// What /metrics reads when it is scraped: queue backlogs, the mail outbox, the rate limiter's
// fallback and the database pool.
function readMetricsAtScrape(platform: Platform, list: readonly AreaModule[],
  rateLimiter: ReturnType<typeof createRateLimiter>) {
  const { db } = platform.database;
  platform.metrics.readAtScrape({
    backlogs: async () => (await Promise.all([jobQueueBacklogs(db),
      ...list.flatMap((module) => module.backlogs?.() ?? [])])).flat(),
    mailOutboxPending: () => mailOutboxPending(db),
    rateLimiterInMemory: () => rateLimiter.countingIn() === 'memoryFallback',
    pool: platform.database.embedded ? null : platform.database.pool,
  });
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const platform = await openPlatform(config, systemOutside(options.outside),
    { embeddedHolder: 'server' });
  const rateLimiter = createRateLimiter({
    redisUrl: config.REDIS_URL,
    policies: buildRateLimitPolicies(config.RATE_LIMIT_OVERRIDES),
    log: platform.log,
  });
  const { list: ownModules, ...named } = await createAreaModules(platform,
    { attempts: rateLimiter });
  const list = [...ownModules, ...(options.extraModules?.(platform) ?? [])];
  for (const module of list) await module.migrateData?.();
  const keys = createKeyCache(platform.accounts, config.AUTH_CACHE_TTL_MS,
    platform.outside.now);
  const server = await buildServer({
    logger: platform.log,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    requestReceiveTimeoutMs: config.REQUEST_RECEIVE_TIMEOUT_MS,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    guidesBaseUrl: config.GUIDES_BASE_URL,
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    keys,
    rateLimiter,
    modules: list,
    // The dashboard shares the API's key cache (a key revoked there stops here at once) and
    // rate limiter, and reaches areas through what their index.ts offers.
    dashboard: dashboardPlugin(() => ({ platform, keys, rateLimiter, sealing: named.sealing,
      cursors: named.cursors, areas: dashboardAreas(named) })),
    // Its tools call /v1 of this server (loaded on the first request, once it exists).
    mcp: mcpPlugin(() => ({ server: () => server, keys, db: platform.database.db,
      sealing: named.sealing, allowLive: config.MCP_ALLOW_LIVE,
      publicBaseUrl: config.PUBLIC_BASE_URL, now: platform.outside.now })),
    instrument: options.instrument,
    metrics: { registry: platform.metrics, token: config.METRICS_TOKEN },
  });
  readMetricsAtScrape(platform, list, rateLimiter);
  const dueWork = createDueWorkRunner({ workersEnabled: platform.config.WORKERS_ENABLED,
    log: platform.log });
  return {
    ...named,
    platform,
    server,
    jobs: platform.jobs,
    async start() {
      await platform.jobs.start([
        ...platform.jobDefinitions,
        ...list.flatMap((module) => module.jobs ?? []),
      ]);
      dueWork.start(list.flatMap((module) => module.dueWork ?? []));
      for (const module of list) await module.start?.();
    },
    async close() {
      // Requests in flight get SHUTDOWN_GRACE_MS to finish; then their connections are closed,
      // so a client that never finishes sending, or a request that never ends, cannot hold the
      // shutdown.
      const cut = setTimeout(() => server.server.closeAllConnections(),
        config.SHUTDOWN_GRACE_MS);
      try {
        await server.close();
      } finally {
        clearTimeout(cut);
      }
      await dueWork.stop();
      await platform.jobs.stop();
      for (const module of list) await module.close?.();
      await rateLimiter.close();
      await platform.close();
    },
  };
}
