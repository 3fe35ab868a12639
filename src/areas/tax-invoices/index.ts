import type { RecordEvents } from '../../platform/events.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { Platform } from '../../platform/platform.ts';
import { createGatewayTransmitter } from '../../upstream/tax-invoices/gateway.ts';
import type { InvoiceTransmitter } from '../../upstream/tax-invoices/index.ts';
import { createSandboxTransmitter } from '../../upstream/tax-invoices/sandbox.ts';
import type { IssuersService } from '../issuers/index.ts';
import { createAcceptance } from './acceptance.ts';
import { processingJobDefinitions } from './processing.ts';
import { registerApprovalPageRoutes } from './reverse-page-routes.ts';
import { reverseIssuanceRoutes } from './reverse-routes.ts';
import { createReverseIssuanceService, type ReverseIssuanceService } from './reverse-service.ts';
import { taxInvoiceRoutes } from './routes.ts';
import { createTaxInvoicesService, type TaxInvoicesService } from './service.ts';

// Tax invoices (docs/tax-invoices.md): issuance, amendments, reverse issuance, processing to
// the tax authority and PDFs.

export type TaxInvoicesModule = AreaModule & {
  service: TaxInvoicesService;
  reverseIssuance: ReverseIssuanceService;
  jobDefinitions: JobDefinition[];
};

// Test keys transmit to the sandbox and live keys to the configured gateway; without one, live
// issuance is refused when it is requested. Both adapters are built once.
export function createTaxInvoicesModule(
  platform: Platform,
  deps: { issuers: IssuersService; recordEvents: RecordEvents },
): TaxInvoicesModule {
  const { config, jobs } = platform;
  const sandbox = createSandboxTransmitter({ latencyMs: config.TAX_INVOICE_SANDBOX_LATENCY_MS });
  const live = config.TAX_INVOICE_GATEWAY_URL === undefined ? null : createGatewayTransmitter({
    gatewayUrl: config.TAX_INVOICE_GATEWAY_URL,
    timeoutMs: config.TAX_INVOICE_GATEWAY_TIMEOUT_MS,
  });
  const transmitterFor = (environment: string): InvoiceTransmitter | null =>
    environment === 'live' ? live : sandbox;
  const now = platform.outside.now;
  const lifecycle = {
    points: platform.points,
    recordEvents: deps.recordEvents,
    documentUrl: (issuanceKey: string) =>
      `${config.PUBLIC_BASE_URL}/v1/taxInvoices/${issuanceKey}/pdf`,
  };
  const accept = createAcceptance({
    db: platform.database.db,
    stageMany: jobs.stageMany,
    charge: platform.charge,
    issuers: deps.issuers,
    transmissionAvailable: (environment) => transmitterFor(environment) !== null,
  });
  const unitPoints = platform.prices['taxInvoices.issue'];
  const service = createTaxInvoicesService({ ...lifecycle, db: platform.database.db, accept,
    unitPoints, now });
  const reverseIssuance = createReverseIssuanceService({ ...lifecycle,
    db: platform.database.db, accept, stage: jobs.stage, issuers: deps.issuers,
    queueMail: platform.queueMail, unitPoints, publicBaseUrl: config.PUBLIC_BASE_URL, now });
  const jobDefinitions = processingJobDefinitions({
    ...lifecycle,
    db: platform.database.db,
    stage: jobs.stage,
    stageMany: jobs.stageMany,
    issuers: deps.issuers,
    transmitterFor,
    transmissionDelaySeconds: config.TAX_INVOICE_TRANSMISSION_DELAY_SECONDS,
    transmissionTimeoutMs: config.TAX_INVOICE_GATEWAY_TIMEOUT_MS,
    now,
    log: platform.log,
  });
  return {
    name: 'tax-invoices',
    routes: async (v1) => {
      await v1.register(taxInvoiceRoutes, { taxInvoices: service });
      await v1.register(reverseIssuanceRoutes, { reverseIssuance });
    },
    pages: async (app) => app.register(registerApprovalPageRoutes, { reverseIssuance }),
    jobs: jobDefinitions as AreaModule['jobs'],
    service,
    reverseIssuance,
    jobDefinitions,
  };
}
