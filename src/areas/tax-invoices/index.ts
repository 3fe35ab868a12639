import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../config.ts';
import type { BulkIssuanceService } from '../../platform/bulks/issuance.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { RecordEvents } from '../../platform/events.ts';
import type { RecordIssuedInvoices } from '../../platform/issued-invoices.ts';
import type { DueWorkDefinition } from '../../platform/due-work.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { Scope } from '../../platform/scope.ts';
import { createGatewayTransmitter } from '../../upstream/tax-invoices/gateway.ts';
import type { InvoiceTransmitter } from '../../upstream/tax-invoices/index.ts';
import type { TaxAuthorities } from '../../upstream/tax-authority/adapters.ts';
import type { StatusOfNumber } from '../../upstream/tax-authority/index.ts';
import { createSandboxTransmitter } from '../../upstream/tax-invoices/sandbox.ts';
import type { IssuersService } from '../issuers/index.ts';
import { amendmentRoutes } from './amendments/routes.ts';
import { attachmentRoutes } from './attachments/routes.ts';
import {
  createAttachmentService,
  type AttachmentService,
} from './attachments/service.ts';
import { createTaxInvoiceBulks, taxInvoiceBulkRoutes } from './bulk/config.ts';
import { createAmendmentService, type AmendmentService } from './amendments/service.ts';
import { createHolidayCalendar } from './holidays/calendar.ts';
import { createAcceptance } from './acceptance/accept.ts';
import { cancelRoutes, issuanceRoutes } from './issuance/routes.ts';
import { invoiceMailRoutes } from './mail/routes.ts';
import { INVOICE_MAIL_KIND } from './mail/invoice-mail.ts';
import { createInvoiceMailService, type InvoiceMailService } from './mail/service.ts';
import { createSupplierEligibility } from './acceptance/supplier-eligibility.ts';
import {
  createIssuanceService,
  type IssuanceService,
  type RecipientOf,
} from './issuance/service.ts';
import { processingSteps } from './processing/steps.ts';
import { retrievalRoutes } from './retrieval/routes.ts';
import { createRetrievalService, type RetrievalService } from './retrieval/service.ts';
import { stepBacklogs } from './processing/steps-store.ts';
import { registerApprovalPageRoutes } from './reverse-issuance/page-routes.ts';
import { ACCEPTANCE_ERRORS, COMMON_ERRORS } from './route-errors.ts';
import { findIssuedByTotals } from './store.ts';
import { xmlRoutes } from './xml/routes.ts';
import { createXmlService, type XmlService } from './xml/service.ts';
import { reverseIssuanceRoutes } from './reverse-issuance/routes.ts';
import {
  createReverseIssuanceService,
  type ReverseIssuanceService,
} from './reverse-issuance/service.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Tax invoices',
    description: 'Issuing, finding, canceling and downloading tax invoices.',
    guides: [
      { path: 'docs/tax-invoices.md', title: 'Tax invoices' },
      { path: 'docs/tax-invoice-xml.md', title: 'Tax invoice XML, signature and transmission' },
      { path: 'docs/bulk-issuance.md', title: 'Bulk issuance' },
    ],
  },
  {
    tag: 'Tax invoice amendments',
    description: 'Amended tax invoices, for each of the six reasons.',
    guides: [
      { path: 'docs/tax-invoice-amendments.md', title: 'Tax invoice amendments' },
    ],
  },
  {
    tag: 'Reverse issuance',
    description: 'Invoices the recipient requests and the supplier approves.',
    guides: [
      { path: 'docs/reverse-issuance.md', title: 'Reverse issuance' },
    ],
  },
];

// Tax invoices (docs/tax-invoices.md): the area's one front door. Each capability is a
// sub-folder with the house files (routes.ts HTTP only, schemas.ts TypeBox, service.ts rules,
// store.ts SQL, tables.ts Drizzle tables, jobs.ts job definitions) where it has them, laid out
// as every area that makes documents is (docs/architecture.md § Areas that make documents):
//
//   acceptance/        how every request that makes documents is accepted (accept.ts) and its
//                      batches (batches.ts), the rules between a document's fields
//                      (validation.ts), the late-issuance window and penalty table
//                      (late-issuance.ts) and the supplier's eligibility from its registration
//                      status (supplier-eligibility.ts), which every document-making request
//                      and reverse approval goes through
//   issuance/          issuing a tax invoice: the issue route, its validation without effect,
//                      cancel before transmission
//   retrieval/         the reads over documents of any kind: status by reference id, get, list,
//                      PDF, the issue due date, and the dashboard's browsing
//   amendments/        amending a transmitted tax invoice, one rule per reason in a file named
//                      after it (termination.ts, returned-goods.ts, …) run by draft.ts
//   reverse-issuance/  the recipient's request, the supplier's decision (API, hosted approval
//                      page, mailed link), its links, mail, page and table
//   mail/              the recipient's mail of a transmitted invoice, its resend route and the
//                      hooks that attach the PDF (and the attachments) and announce its
//                      delivery or bounce
//   attachments/       the files a document carries to its recipient: their kinds, limits and
//                      kept names, routes, service, store and table
//   bulk/              bulk issuance: up to 100 documents in one request, each accepted by
//                      issuance's issue: the platform's bulk issuance (platform/bulks/)
//                      configured with the single issue's schemas, service and names
//   processing/        the steps that sign and transmit accepted documents (steps.ts, one
//                      <step>-job.ts each), and their queue
//   pdf/               the PDF of a document: layout, painting, fonts, text fitting
//   xml/               the signed standard XML of a document: its codes, building, approval
//                      number and signature at issuance (run by processing/), table and route
//   holidays/          the days an operator adds to the holiday table, and the process's copy
//                      of them that every deadline computation takes
//
// At the root is what they all share: tables.ts and store.ts (the documents and their history),
// schemas.ts (the document and the request pieces every document-making route takes),
// lifecycle.ts (the status changes that end a document or record its transmission) and
// route-errors.ts. Of each other, sub-folders use only acceptance (how every request that makes
// documents is accepted and checked), processing's steps (where the accepted work goes),
// retrieval's view of a document, the PDF and the holiday calendar; never another's routes.

// The holidays an operator adds, for `etax holidays` (src/cli/holidays.ts).
export { HOLIDAYS_REFRESH_MS } from './holidays/calendar.ts';
// Building and signing a document's standard XML, for bench/xml-signature.ts.
export { signTaxInvoiceXml } from './xml/signed-document.ts';
export { addHoliday, HOLIDAY_NAME_LENGTH_MAX, listHolidays, removeHoliday } from
  './holidays/store.ts';

// What the dashboard's tax-invoice pages use besides the services: the document's shape, its
// statuses and amendment reasons, the request schemas its forms are checked with, and the
// filters of its list.
export {
  AMENDMENT_REASONS, IssueBody, ITEMS_MAX, TAX_INVOICE_STATUSES, type AmendmentReason,
  type Invoice, type TaxInvoiceStatus,
} from './schemas.ts';
// The recipient's fields, which a counterparty of the book mirrors (the counterparties area).
export { Manager, partyFields } from './schemas.ts';
export type { RecipientOf } from './issuance/service.ts';
export type { TaxInvoiceView } from './retrieval/schemas.ts';
// What issuance answers besides the platform's errors, for a draft's issue (src/areas/drafts/).
export const TAX_INVOICE_ISSUE_ERRORS = [...COMMON_ERRORS, ...ACCEPTANCE_ERRORS] as const;
export type { DocumentPreview } from './acceptance/accept.ts';
export type { BrowseFilters } from './store.ts';
export {
  EntryCorrectionBody, LocalLetterOfCreditBody, ReturnedGoodsBody, SupplyCostChangeBody,
  TerminationBody,
} from './amendments/schemas.ts';
export type { AmendmentRequest } from './amendments/draft.ts';
export type { XmlService } from './xml/service.ts';
export type { InvoiceMailService } from './mail/service.ts';
export type { ReverseIssuanceService } from './reverse-issuance/service.ts';
// Bulk issuance (docs/bulk-issuance.md): what the dashboard's uploads call.
export type TaxInvoiceBulkService = BulkIssuanceService;
export type { AttachmentService, AttachmentView } from './attachments/service.ts';
export { ATTACHMENT_EXTENSIONS, ATTACHMENTS_PER_INVOICE_MAX } from './attachments/files.ts';

// Issued sales invoices of a scope by total, for the bank transactions area's matching hints.
export type IssuedInvoicesByTotals = (input: { scope: Scope; totals: readonly number[];
  from: string; to: string }) => Promise<Array<{ issuanceKey: string; totalAmount: number;
  writeDate: string; approvalNumber: string | null; recipientName: string;
  purpose: 'RECEIPT' | 'CLAIM' }>>;

// What the routes call: issuance and cancellation, retrieval, and amendments.
export type TaxInvoicesService = IssuanceService & RetrievalService & AmendmentService;

export type TaxInvoicesModule = AreaModule & {
  routes: FastifyPluginAsync;
  pages: FastifyPluginAsync;
  // The processing steps: issuance (signing) and transmission.
  dueWork: DueWorkDefinition[];
  service: TaxInvoicesService;
  // Bulk issuance: up to 100 documents, each accepted as service.issue accepts one.
  bulks: TaxInvoiceBulkService;
  reverseIssuance: ReverseIssuanceService;
  invoiceMail: InvoiceMailService;
  xml: XmlService;
  attachments: AttachmentService;
  issuedByTotals: IssuedInvoicesByTotals;
  // A business's registration status at the tax authority (sandbox for test keys), as supplier
  // eligibility learns it, cached; null when the authority did not answer.
  registrationStatusOf: RegistrationStatusOf;
};

export type RegistrationStatusOf = (input: { environment: Environment;
  businessNumber: string }) => Promise<StatusOfNumber | null>;

// What the tax-invoices area needs from other areas.
export type TaxInvoicesDeps = {
  // Supplier-Key resolution and the certificates that sign.
  issuers: IssuersService;
  // The webhook outbox: issuance outcomes, reverse issuance decisions and amendments are events.
  recordEvents: RecordEvents;
  // The revenue and expense books, told of every document that gets its approval number.
  recordIssuedInvoices?: RecordIssuedInvoices;
  // The counterparty book: the recipient fields of an issuance that names a counterparty.
  recipientOf?: RecipientOf;
  // The tax authority's adapters: the supplier's registration status.
  taxAuthorities: TaxAuthorities;
};

// Test keys transmit to the sandbox and live keys to the configured gateway; without one, live
// issuance is refused when it is requested. Both adapters are built once.
function createTransmitters(config: Config) {
  const sandbox = createSandboxTransmitter({ latencyMs: config.TAX_INVOICE_SANDBOX_LATENCY_MS });
  const live = config.TAX_INVOICE_GATEWAY_URL === undefined ? null : createGatewayTransmitter({
    gatewayUrl: config.TAX_INVOICE_GATEWAY_URL,
    timeoutMs: config.TAX_INVOICE_GATEWAY_TIMEOUT_MS,
  });
  return (environment: Environment): InvoiceTransmitter | null =>
    (environment === 'live' ? live : sandbox);
}

// The module's HTTP side over its services.
function createTaxInvoicesPlugins(
  services: Pick<TaxInvoicesModule, 'service' | 'bulks' | 'reverseIssuance' | 'invoiceMail'
    | 'xml' | 'attachments'>,
): Pick<TaxInvoicesModule, 'routes' | 'pages'> {
  const { service, bulks, reverseIssuance, invoiceMail, xml, attachments } = services;
  return {
    // The order is the order of the OpenAPI document.
    async routes(v1) {
      await v1.register(issuanceRoutes, { taxInvoices: service });
      await v1.register(retrievalRoutes, { taxInvoices: service });
      await v1.register(cancelRoutes, { taxInvoices: service });
      await v1.register(taxInvoiceBulkRoutes, { bulks });
      await v1.register(invoiceMailRoutes, { invoiceMail });
      await v1.register(xmlRoutes, { xml });
      await v1.register(attachmentRoutes, { attachments });
      await v1.register(amendmentRoutes, { amendments: service });
      await v1.register(reverseIssuanceRoutes, { reverseIssuance });
    },
    // The reverse issuance approval page: outside /v1, its one-time token is the credential.
    async pages(app) {
      await app.register(registerApprovalPageRoutes, { reverseIssuance });
    },
  };
}

export function createTaxInvoicesModule(
  platform: AreaPlatform,
  deps: TaxInvoicesDeps,
): TaxInvoicesModule {
  const { config, database: { db } } = platform;
  const transmitterFor = createTransmitters(config);
  const now = platform.outside.now;
  const holidays = createHolidayCalendar({ db, now, log: platform.log });
  const lifecycle = {
    points: platform.points,
    recordEvents: deps.recordEvents,
    recordIssuedInvoices: deps.recordIssuedInvoices,
    documentUrl: (issuanceKey: string) =>
      `${config.PUBLIC_BASE_URL}/v1/taxInvoices/${issuanceKey}/pdf`,
  };
  const eligibility = createSupplierEligibility({
    // The supplier's registration status, from the adapters the registration status
    // operations ask.
    authorityFor: deps.taxAuthorities.statusFor,
    timeoutMs: config.TAX_AUTHORITY_TIMEOUT_MS,
    cacheMs: config.TAX_INVOICE_SUPPLIER_STATUS_CACHE_SECONDS * 1000,
    unavailable: config.TAX_INVOICE_SUPPLIER_STATUS_UNAVAILABLE,
    now,
    log: platform.log,
  });
  const accept = createAcceptance({ db, now, eligibility, points: platform.points,
    issuers: deps.issuers,
    transmissionAvailable: (environment) => transmitterFor(environment) !== null });
  const unitPoints = platform.prices['taxInvoices.issue'];
  const service: TaxInvoicesService = {
    ...createIssuanceService({ ...lifecycle, db, accept, unitPoints, holidays, now,
      recipientOf: deps.recipientOf }),
    ...createRetrievalService({ db, holidays, cursors: platform.cursors }),
    ...createAmendmentService({ db, accept, unitPoints, recordEvents: deps.recordEvents,
      holidays, now }),
  };
  const reverseIssuance = createReverseIssuanceService({ ...lifecycle, db, accept, eligibility,
    issuers: deps.issuers, queueMail: platform.queueMail,
    unitPoints, publicBaseUrl: config.PUBLIC_BASE_URL, holidays, now });
  const attachments = createAttachmentService({ db, now });
  const invoiceMail = createInvoiceMailService({ db, queueMails: platform.queueMails,
    recordEvents: deps.recordEvents, attachmentsOf: attachments.forMail });
  platform.registerMailKind(INVOICE_MAIL_KIND, invoiceMail.hooks);
  const dueWork = processingSteps({
    ...lifecycle,
    db,
    issuers: deps.issuers,
    transmitterFor,
    transmissionDelaySeconds: config.TAX_INVOICE_TRANSMISSION_DELAY_SECONDS,
    transmissionTimeoutMs: config.TAX_INVOICE_GATEWAY_TIMEOUT_MS,
    ntsSystemCode: config.TAX_INVOICE_NTS_SYSTEM_CODE, now, log: platform.log,
    mailTransmitted: invoiceMail.queueTransmitted,
  });
  const xml = createXmlService({ db });
  const { completion: bulkCompletion, service: bulks } = createTaxInvoiceBulks({ db, now,
    issue: service.issue, cursors: platform.cursors, recordEvents: deps.recordEvents });
  return {
    name: 'tax-invoices', reference: REFERENCE,
    ...createTaxInvoicesPlugins({ service, bulks, reverseIssuance, invoiceMail, xml,
      attachments }),
    dueWork: [...dueWork, bulkCompletion], bulks, backlogs: () => stepBacklogs(db),
    service, reverseIssuance, invoiceMail, xml, attachments,
    issuedByTotals: ({ scope, totals, from, to }) =>
      findIssuedByTotals(db, scope, totals, from, to),
    registrationStatusOf: ({ environment, businessNumber }) =>
      eligibility.statusOf(environment, businessNumber),
    start: () => holidays.warnWhenEndingSoon(),
  };
}
