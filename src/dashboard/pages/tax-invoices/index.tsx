import type { DashboardPage } from '../../context.ts';
import { amendFormOutcome, amendOutcome, amendPreviewOutcome } from './amend.tsx';
import {
  approve, attach, attachmentOutcome, cancel, cancelRequest, deleteAttachment, detailOutcome,
  pdfOutcome, refuse, resend, xmlOutcome,
} from './detail.tsx';
import { draftFormOutcome, issueDraftOutcome, saveDraftOutcome } from './draft-form.tsx';
import { issueOutcome, lookupOutcome, newOutcome, previewOutcome } from './issue.tsx';
import { exportOutcome, listOutcome } from './list.tsx';
import { requestsOutcome } from './requests.tsx';

// Tax invoices in the dashboard (docs/dashboard.md § Tax invoices): the list and its exports,
// a document's page and its actions, the issue form, amendments and reverse issuance requests.
// Every role reads; Owner, Admin and Issuer (documents.issue) issue, cancel, amend and decide;
// a Developer also opens the issue form, to save drafts (drafts.submit).
// Static paths come before `:issuanceKey` in find-my-way whatever the order here.
export const taxInvoicesPage: DashboardPage = {
  nav: { label: 'nav.taxInvoices', path: '/tax-invoices', section: 'issuing',
    permission: 'account.read' },
  routes: [
    { method: 'GET', path: '/tax-invoices', permission: 'account.read', handle: listOutcome },
    { method: 'GET', path: '/tax-invoices.csv', permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'csv') },
    { method: 'GET', path: '/tax-invoices.xlsx', permission: 'account.read',
      handle: (ctx) => exportOutcome(ctx, 'xlsx') },
    { method: 'GET', path: '/tax-invoices/requests', permission: 'account.read',
      handle: requestsOutcome },
    // The form is open to who may save drafts (docs/drafts.md); its preview and issue are not.
    { method: 'GET', path: '/tax-invoices/new', permission: 'drafts.submit',
      handle: (ctx) => (ctx.query.has('draft') ? draftFormOutcome(ctx) : newOutcome(ctx)) },
    { method: 'POST', path: '/tax-invoices/new/draft', permission: 'drafts.submit',
      handle: saveDraftOutcome },
    { method: 'POST', path: '/tax-invoices/new/draft-issue', permission: 'documents.issue',
      handle: issueDraftOutcome },
    { method: 'POST', path: '/tax-invoices/new/preview', permission: 'documents.issue',
      handle: previewOutcome },
    { method: 'POST', path: '/tax-invoices/new', permission: 'documents.issue',
      handle: issueOutcome },
    { method: 'POST', path: '/tax-invoices/new/lookup', permission: 'documents.issue',
      handle: lookupOutcome },
    { method: 'GET', path: '/tax-invoices/:issuanceKey', permission: 'account.read',
      handle: (ctx) => detailOutcome(ctx) },
    { method: 'GET', path: '/tax-invoices/:issuanceKey/pdf', permission: 'account.read',
      handle: pdfOutcome },
    { method: 'GET', path: '/tax-invoices/:issuanceKey/xml', permission: 'account.read',
      handle: xmlOutcome },
    { method: 'GET', path: '/tax-invoices/:issuanceKey/attachments/:attachmentId',
      permission: 'account.read', handle: attachmentOutcome },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/attachments',
      permission: 'documents.issue', handle: attach },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/attachments/:attachmentId/delete',
      permission: 'documents.issue', handle: deleteAttachment },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/resend', permission: 'documents.issue',
      handle: resend },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/cancel', permission: 'documents.issue',
      handle: cancel },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/approve', permission: 'documents.issue',
      handle: approve },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/refuse', permission: 'documents.issue',
      handle: refuse },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/cancel-request',
      permission: 'documents.issue', handle: cancelRequest },
    { method: 'GET', path: '/tax-invoices/:issuanceKey/amend', permission: 'documents.issue',
      handle: amendFormOutcome },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/amend/preview',
      permission: 'documents.issue', handle: amendPreviewOutcome },
    { method: 'POST', path: '/tax-invoices/:issuanceKey/amend', permission: 'documents.issue',
      handle: amendOutcome },
  ],
};
