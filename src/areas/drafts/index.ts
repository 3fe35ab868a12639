import type { FastifyPluginAsync } from 'fastify';
import type { RecordEvents } from '../../platform/events.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { Scope } from '../../platform/scope.ts';
import type { IssuersService } from '../issuers/index.ts';
import {
  CASH_RECEIPT_ISSUE_ERRORS,
  CashReceiptIssueInput,
  type CashReceiptsService,
} from '../cash-receipts/index.ts';
import {
  IssueBody as TaxInvoiceIssueBody,
  TAX_INVOICE_ISSUE_ERRORS,
  type Invoice,
  type TaxInvoicesService,
} from '../tax-invoices/index.ts';
import { draftRoutes } from './routes.ts';
import { draftBodies, draftPageSchema, draftSchema } from './schemas.ts';
import {
  createApprovalSettings,
  createDraftService,
  type ApprovalSettings,
  type DraftService,
} from './service.ts';

// Drafts (docs/drafts.md): the area's one front door. Tax invoice and cash receipt issuance
// bodies saved, changed, listed, read, deleted and issued later, and the approval an account may
// require before a draft is issued. The files:
//   routes.ts, schemas.ts   HTTP and its TypeBox schemas, the same for each kind
//   service.ts              the service of a kind, made of:
//     reading.ts            finding a draft and the problems issuance would report
//     editing.ts            saving (one, or many from an import), listing, changing, deleting
//     issuing.ts            issuing through the kind's own issuance, submission and approval
//   store.ts, tables.ts     SQL and the tables (drafts, the account's approval setting)
// A kind's issuance is its own area's service: a draft is checked and issued by the same code as
// the issue route, never a copy of its rules.

const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Drafts',
    description: 'Tax invoices and cash receipts saved to issue later, and their approval.',
    guides: [{ path: 'docs/drafts.md', title: 'Drafts and approval' }],
  },
];

export type { DraftService, ApprovalSettings };
// The approval setting alone, for the CLI (`etax account approval`), which builds no area.
export { createApprovalSettings };
export type { DraftView } from './schemas.ts';

export type DraftsModule = AreaModule & {
  routes: FastifyPluginAsync;
  // Tax invoice drafts: what the dashboard and other areas (an import that saves rows as
  // drafts) call, e.g. `taxInvoiceDrafts.create({ caller, supplierKey, body })`.
  taxInvoiceDrafts: DraftService;
  cashReceiptDrafts: DraftService;
  approval: ApprovalSettings;
};

export type DraftsDeps = {
  issuers: Pick<IssuersService, 'resolveSupplierKey'>;
  taxInvoices: Pick<TaxInvoicesService, 'issue' | 'previewIssue'>;
  cashReceipts: Pick<CashReceiptsService, 'issue' | 'previewIssue'>;
  recordEvents: RecordEvents;
};

const TAX_INVOICE_BODIES = draftBodies<Invoice>(TaxInvoiceIssueBody, {
  content: 'TaxInvoiceDraftBody', patch: 'TaxInvoiceDraftPatch', what: 'a tax invoice' });
const CASH_RECEIPT_BODIES = draftBodies<Record<string, unknown>>(CashReceiptIssueInput, {
  content: 'CashReceiptDraftBody', patch: 'CashReceiptDraftPatch', what: 'a cash receipt' });
const TAX_INVOICE_DRAFT = draftSchema(TAX_INVOICE_BODIES.view,
  { title: 'TaxInvoiceDraft', what: 'tax invoice' });
const CASH_RECEIPT_DRAFT = draftSchema(CASH_RECEIPT_BODIES.view,
  { title: 'CashReceiptDraft', what: 'cash receipt' });

export function createDraftsModule(platform: AreaPlatform, deps: DraftsDeps): DraftsModule {
  const { database: { db } } = platform;
  const base = { db, now: platform.outside.now, cursors: platform.cursors,
    recordEvents: deps.recordEvents,
    requireSupplier: (scope: Scope, supplierKey: string) =>
      deps.issuers.resolveSupplierKey(scope, supplierKey) };
  const taxInvoiceDrafts = createDraftService(base, {
    kind: 'TAX_INVOICE', issueBody: TaxInvoiceIssueBody, draftBody: TAX_INVOICE_BODIES.content,
    preview: async (input) => {
      await deps.taxInvoices.previewIssue({ ...input, referenceId: undefined,
        body: input.body as Invoice });
    },
    issue: (input) => deps.taxInvoices.issue({ ...input, body: input.body as Invoice,
      onRecorded: (tx, keys) => input.onRecorded(tx, keys[0]!) }),
    route: (draftId) => `/v1/taxInvoices/drafts/${draftId}:issue`,
    events: { submitted: 'TAX_INVOICE_DRAFT_SUBMITTED', approved: 'TAX_INVOICE_DRAFT_APPROVED',
      returned: 'TAX_INVOICE_DRAFT_RETURNED' },
  });
  const cashReceiptDrafts = createDraftService(base, {
    kind: 'CASH_RECEIPT', issueBody: CashReceiptIssueInput,
    draftBody: CASH_RECEIPT_BODIES.content,
    preview: (input) => deps.cashReceipts.previewIssue({ ...input,
      body: input.body as Parameters<CashReceiptsService['issue']>[0]['body'] }),
    issue: (input) => deps.cashReceipts.issue({ caller: input.caller,
      supplierKey: input.supplierKey, referenceId: input.referenceId,
      body: input.body as Parameters<CashReceiptsService['issue']>[0]['body'],
      route: input.route, inTransaction: { guard: input.guard,
        onRecorded: input.onRecorded } }),
    route: (draftId) => `/v1/cashReceipts/drafts/${draftId}:issue`,
    events: { submitted: 'CASH_RECEIPT_DRAFT_SUBMITTED', approved: 'CASH_RECEIPT_DRAFT_APPROVED',
      returned: 'CASH_RECEIPT_DRAFT_RETURNED' },
  });
  return {
    name: 'drafts', reference: REFERENCE,
    async routes(v1) {
      await v1.register(draftRoutes, { drafts: taxInvoiceDrafts, resource: 'taxInvoices',
        noun: 'TaxInvoice', what: 'tax invoice', content: TAX_INVOICE_BODIES.content,
        patch: TAX_INVOICE_BODIES.patch, draft: TAX_INVOICE_DRAFT,
        page: draftPageSchema(TAX_INVOICE_DRAFT, 'TaxInvoiceDraftPage'),
        issueErrors: TAX_INVOICE_ISSUE_ERRORS, issueStatus: 200 });
      await v1.register(draftRoutes, { drafts: cashReceiptDrafts, resource: 'cashReceipts',
        noun: 'CashReceipt', what: 'cash receipt', content: CASH_RECEIPT_BODIES.content,
        patch: CASH_RECEIPT_BODIES.patch, draft: CASH_RECEIPT_DRAFT,
        page: draftPageSchema(CASH_RECEIPT_DRAFT, 'CashReceiptDraftPage'),
        issueErrors: CASH_RECEIPT_ISSUE_ERRORS, issueStatus: 202 });
    },
    taxInvoiceDrafts,
    cashReceiptDrafts,
    approval: createApprovalSettings({ db, now: platform.outside.now }),
  };
}
