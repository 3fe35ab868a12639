import type { FastifyPluginAsync } from 'fastify';
import { addDays, seoulDate } from '../../domain/business-days.ts';
import type { Config } from '../../config.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { DueWorkDefinition } from '../../platform/due-work.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import { createGatewayCashReceiptAuthority } from '../../upstream/cash-receipts/gateway.ts';
import type { CashReceiptAuthority } from '../../upstream/cash-receipts/index.ts';
import { createSandboxCashReceiptAuthority } from '../../upstream/cash-receipts/sandbox.ts';
import type { IssuersService } from '../issuers/index.ts';
import { resealIdentityNumbers, sealPlaintextIdentityNumbers } from './identity-numbers.ts';
import { CASH_RECEIPT_MAIL_KIND, customerMailHooks } from './mail/customer-mail.ts';
import { APPROVAL_RETRY_DELAYS_SECONDS } from './processing/approval-job.ts';
import { processingSteps } from './processing/steps.ts';
import type { BulkIssuanceService } from '../../platform/bulks/issuance.ts';
import { cashReceiptBulkRoutes, createCashReceiptBulks } from './bulk/config.ts';
import { cancelRoutes, issuanceRoutes } from './issuance/routes.ts';
import { createIssuanceService, type IssuanceService } from './issuance/service.ts';
import { retrievalRoutes } from './retrieval/routes.ts';
import { createRetrievalService, type RetrievalService } from './retrieval/service.ts';
import { stepBacklogs, type CashReceiptRow } from './store.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Cash receipts',
    description: 'Issuing and canceling cash receipts.',
    guides: [
      { path: 'docs/cash-receipts.md', title: 'Cash receipts' },
      { path: 'docs/bulk-issuance.md', title: 'Bulk issuance' },
    ],
  },
];

// Cash receipts (docs/cash-receipts.md): the area's one front door, laid out as every area that
// makes documents is (docs/architecture.md § Areas that make documents):
//   schemas.ts              the TypeBox schemas of the receipt and its requests
//   route-errors.ts         the error lists the routes declare
//   issuance/               issue, validate and cancel: routes.ts, and service.ts, which
//                           accepts them (reference ids, points, the cancel rules)
//   acceptance/             issuances accepted at the same moment, recorded in one transaction
//                           (batches.ts); the price debited with a receipt (charges.ts); the
//                           rules between fields of a request (validation.ts)
//   retrieval/              status by reference id, list, get, PDF: routes.ts, service.ts
//   identity-numbers.ts     the customer's identity number sealed at rest, and masked
//   store.ts, tables.ts     SQL and the tables (the receipts and their queue of steps)
//   lifecycle.ts            the status changes that decide a receipt, with their events,
//                           refunds and mails
//   processing/             the approval and transmission steps (steps.ts, one <step>-job.ts
//                           each), run by the workers
//   pdf/, mail/             the customer's copy: the PDF (render.ts, receipt-facts.ts) and the
//                           mail (customer-mail.ts)
//   bulk/                   bulk issuance: up to 100 receipts in one request, each accepted by
//                           issuance's issue, with the platform's bulk mechanism

// What the routes call: issuance and cancellation, and retrieval.
export type CashReceiptsService = IssuanceService & RetrievalService;
// Bulk issuance (docs/bulk-issuance.md): what the dashboard's uploads call.
export type CashReceiptBulkService = BulkIssuanceService;
// What an issuance and a cancellation may be, as the API checks them: the dashboard's forms are
// checked with the same schemas and offer the same choices.
export {
  CANCEL_REASONS,
  CASH_RECEIPT_KINDS,
  CASH_RECEIPT_STATUSES,
  CASH_RECEIPT_USAGES,
  CancelBody as CashReceiptCancelInput,
  IssueBody as CashReceiptIssueInput,
  TAXATIONS,
  TRADE_OPTIONS,
} from './schemas.ts';
export type { CashReceiptView } from './schemas.ts';
// What issuance answers besides the platform's errors, for a draft's issue (src/areas/drafts/).
export { ISSUE_ERRORS as CASH_RECEIPT_ISSUE_ERRORS } from './route-errors.ts';

export type CashReceiptsModule = AreaModule & {
  routes: FastifyPluginAsync;
  dueWork: DueWorkDefinition[];
  service: CashReceiptsService;
  // Bulk issuance: up to 100 receipts, each accepted as service.issue accepts one.
  bulks: CashReceiptBulkService;
};

export type CashReceiptsDeps = {
  // Supplier-Key resolution: the merchant is an issuer of the caller's key.
  issuers: Pick<IssuersService, 'resolveSupplierKey'>;
  recordEvents: RecordEvents;
  // Seals the customers' identity numbers (identity-numbers.ts).
  sealing: SealingKey;
};

// Test keys reach the sandbox and live keys the configured gateway; without one, live requests
// are refused. Both adapters are built once.
function createAuthorities(config: Config) {
  const sandbox = createSandboxCashReceiptAuthority({
    approvalDelayMs: config.CASH_RECEIPT_SANDBOX_APPROVAL_DELAY_MS });
  const live = config.CASH_RECEIPT_GATEWAY_URL === undefined ? null
    : createGatewayCashReceiptAuthority({ gatewayUrl: config.CASH_RECEIPT_GATEWAY_URL,
      timeoutMs: config.CASH_RECEIPT_GATEWAY_TIMEOUT_MS });
  return (environment: Environment): CashReceiptAuthority | null =>
    (environment === 'live' ? live : sandbox);
}

// Production transmits the day after approval (from midnight, Korea time); the sandbox
// compresses that to CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS.
function transmissionSchedule(config: Config) {
  return (environment: Environment, approvedAt: Date): Date => (environment === 'live'
    ? new Date(`${addDays(seoulDate(approvedAt), 1)}T00:00:00+09:00`)
    : new Date(approvedAt.getTime() + config.CASH_RECEIPT_SANDBOX_TRANSMISSION_DELAY_SECONDS *
      1_000));
}

export function createCashReceiptsModule(
  platform: AreaPlatform,
  deps: CashReceiptsDeps,
): CashReceiptsModule {
  const { config, database: { db } } = platform;
  const authorityFor = createAuthorities(config);
  const now = platform.outside.now;
  // pdfkit and the fonts load with the first PDF, not at every start.
  const renderPdf = async (row: CashReceiptRow) =>
    (await import('./pdf/render.ts')).renderCashReceiptPdf(row);
  const { sealing } = deps;
  const service: CashReceiptsService = {
    ...createIssuanceService({
      db, sealing, points: platform.points, issuers: deps.issuers,
      authorityAvailable: (environment) => authorityFor(environment) !== null,
      prices: { 'cashReceipts.issue': platform.prices['cashReceipts.issue'],
        'cashReceipts.cancel': platform.prices['cashReceipts.cancel'] },
      now,
    }),
    ...createRetrievalService({ db, renderPdf, cursors: platform.cursors }),
  };
  platform.registerMailKind(CASH_RECEIPT_MAIL_KIND, customerMailHooks({ db, renderPdf }));
  const dueWork = processingSteps({
    db, sealing, points: platform.points, recordEvents: deps.recordEvents,
    queueMails: platform.queueMails, authorityFor,
    gatewayTimeoutMs: config.CASH_RECEIPT_GATEWAY_TIMEOUT_MS,
    transmissionDueAt: transmissionSchedule(config),
    approvalRetryDelaysSeconds: APPROVAL_RETRY_DELAYS_SECONDS, now, log: platform.log,
  });
  const { completion: bulkCompletion, service: bulks } = createCashReceiptBulks({ db, now,
    issue: service.issue, cursors: platform.cursors, recordEvents: deps.recordEvents });
  return {
    name: 'cash-receipts',
    reference: REFERENCE,
    async routes(v1) {
      // The order is the order of the OpenAPI document.
      await v1.register(issuanceRoutes, { cashReceipts: service });
      await v1.register(retrievalRoutes, { cashReceipts: service });
      await v1.register(cancelRoutes, { cashReceipts: service });
      await v1.register(cashReceiptBulkRoutes, { bulks });
    },
    dueWork: [...dueWork, bulkCompletion],
    bulks,
    backlogs: () => stepBacklogs(db),
    service,
    // Receipts written before identity numbers were sealed are sealed at every start.
    migrateData: async () => {
      const sealed = await sealPlaintextIdentityNumbers(db, sealing);
      if (sealed > 0) {
        platform.log.info({ receipts: sealed }, 'sealed cash receipt identity numbers');
      }
    },
    resealSecrets: () => resealIdentityNumbers(db, sealing),
  };
}
