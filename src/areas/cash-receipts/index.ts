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
import { CASH_RECEIPT_MAIL_KIND, customerMailHooks } from './mail.ts';
import { APPROVAL_RETRY_DELAYS_SECONDS, processingSteps } from './processing/steps.ts';
import { cashReceiptBulkRoutes } from './bulk/routes.ts';
import { createCashReceiptBulkService, type CashReceiptBulkService } from './bulk/service.ts';
import { cashReceiptRoutes } from './routes.ts';
import { createCashReceiptsService, type CashReceiptsService } from './service.ts';
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

// Cash receipts (docs/cash-receipts.md): the area's one front door. The files:
//   routes.ts, schemas.ts   HTTP and its TypeBox schemas
//   service.ts              acceptance (reference ids, points, the cancel rules), retrieval
//   acceptance-batches.ts   issuances accepted at the same moment, recorded in one transaction
//   charges.ts              the price debited in the transaction that records a receipt
//   validation.ts           the rules between fields of a request
//   identity-numbers.ts     the customer's identity number sealed at rest, and masked
//   store.ts, tables.ts     SQL and the table
//   lifecycle.ts            the status changes that decide a receipt, with their events,
//                           refunds and mails
//   processing/             the approval and transmission steps, run by the workers
//   receipt-facts.ts, pdf.ts, mail.ts   the customer's copy: PDF and mail
//   bulk/                   bulk issuance: up to 100 receipts in one request, each accepted by
//                           the service's issue, with the platform's bulk mechanism

export type { CashReceiptsService };
// Bulk issuance (docs/bulk-issuance.md): what the dashboard's uploads call.
export type { CashReceiptBulkService } from './bulk/service.ts';
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
export { ISSUE_ERRORS as CASH_RECEIPT_ISSUE_ERRORS } from './routes.ts';

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
    (await import('./pdf.ts')).renderCashReceiptPdf(row);
  const { sealing } = deps;
  const service = createCashReceiptsService({
    db, sealing, points: platform.points, issuers: deps.issuers, cursors: platform.cursors,
    authorityAvailable: (environment) => authorityFor(environment) !== null,
    prices: { 'cashReceipts.issue': platform.prices['cashReceipts.issue'],
      'cashReceipts.cancel': platform.prices['cashReceipts.cancel'] },
    now,
    renderPdf,
  });
  platform.registerMailKind(CASH_RECEIPT_MAIL_KIND, customerMailHooks({ db, renderPdf }));
  const dueWork = processingSteps({
    db, sealing, points: platform.points, recordEvents: deps.recordEvents,
    queueMails: platform.queueMails, authorityFor,
    gatewayTimeoutMs: config.CASH_RECEIPT_GATEWAY_TIMEOUT_MS,
    transmissionDueAt: transmissionSchedule(config),
    approvalRetryDelaysSeconds: APPROVAL_RETRY_DELAYS_SECONDS, now, log: platform.log,
  });
  const { completion: bulkCompletion, ...bulks } = createCashReceiptBulkService({ db, now,
    issue: service.issue, cursors: platform.cursors, recordEvents: deps.recordEvents });
  return {
    name: 'cash-receipts',
    reference: REFERENCE,
    async routes(v1) {
      await v1.register(cashReceiptRoutes, { cashReceipts: service });
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
