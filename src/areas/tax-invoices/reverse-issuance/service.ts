import assert from 'node:assert/strict';
import { seoulDate } from '../../../domain/business-days.ts';
import type { Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { QueueMail } from '../../../platform/mail/outbox.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import type { IssuersService } from '../../issuers/index.ts';
import { validatedDocument, type Accept, type SupplierIssuer } from '../acceptance/accept.ts';
import { validateInvoice } from '../acceptance/validation.ts';
import type { Invoice } from '../schemas.ts';
import * as store from '../store.ts';
import {
  approveRequest,
  cancelRequest,
  refuseRequest,
  requireApprovable,
  type DecisionDeps,
} from './decisions.ts';
import {
  createApprovalLinks,
  endOfSeoulDay,
  GRANT_LINK_TTL_MS,
  type ApprovalLinks,
} from './links.ts';
import { approvalRequestMail, type MailedRequest } from './mail.ts';
import type { ApprovalPageView } from './page-html.ts';

// Reverse issuance (역발행, docs/reverse-issuance.md): the recipient asks the supplier that
// `Supplier-Key` names to issue a tax invoice; the supplier approves it (on the hosted approval
// page, through the link mailed with the request, or with the approval API) or refuses it, and
// the requester may cancel it until then. An approved request is signed and transmitted by the
// issuance jobs like any invoice. Everything is scoped to the calling key's account and
// environment; a request of another scope, or a STANDARD invoice, is 404 NOT_FOUND.

type ReverseIssuanceDeps = DecisionDeps & {
  accept: Accept;
  queueMail: QueueMail;
  issuers: Pick<IssuersService, 'requireIssuerCertificate' | 'resolveSupplierKey'>;
  // Points per document (the price table's taxInvoices.issue).
  unitPoints: number;
  publicBaseUrl: string;
};

type Deps = ReverseIssuanceDeps & { links: ApprovalLinks };

const ISSUE_REQUEST_ROUTE = '/v1/taxInvoices/issueRequest';

const NO_SUCH_REQUEST = 'No reverse issuance request has this issuance key.';

export type PageDecision = { kind: 'approve' } | { kind: 'refuse'; reason: string | null };

async function requireRequest(deps: Deps, scope: Scope, issuanceKey: string) {
  const row = await store.findInvoice(deps.db, scope, issuanceKey);
  if (row === null || row.issuanceType !== 'REVERSE') {
    throw new ApiError('NOT_FOUND', NO_SUCH_REQUEST);
  }
  return row;
}

// The mail with the supplier's own approval link, in the transaction that records the request.
async function mailApprovalLink(deps: Deps, tx: Tx, row: MailedRequest, issuer: SupplierIssuer) {
  const link = await deps.links.createLink(tx, { issuanceKey: row.issuanceKey,
    channel: 'EMAIL', expiresAt: endOfSeoulDay(row.issueDeadline) });
  const to = issuer.contactEmail ?? row.invoice.supplier.manager.email;
  await deps.queueMail(tx, approvalRequestMail({ row, to, ...link }));
}

type RequestInput = { caller: Caller; supplierKey: string; referenceId: string | undefined;
  body: Invoice };

// Validated like an issuance (forward amounts, deadline enforced) and charged at acceptance; no
// certificate is needed until the supplier approves. The acceptance request is the same for
// the request and its validation.
async function acceptRequestOf(deps: Deps, input: RequestInput):
Promise<Parameters<Accept>[0]> {
  const today = seoulDate(deps.now());
  const holidays = await deps.holidays.added();
  let supplier: SupplierIssuer | null = null;
  return {
    caller: input.caller, supplierKey: input.supplierKey, referenceId: input.referenceId,
    route: ISSUE_REQUEST_ROUTE, body: input.body, issuanceType: 'REVERSE',
    draft: (issuer, supplierPeriods) => {
      supplier = issuer;
      return [{ amendment: null, validated: validateInvoice(input.body, {
        today, amounts: 'forward', deadline: 'enforced', holidays, supplierPeriods,
        broker: 'refused',
        supplier: { identificationNumber: issuer.identificationNumber,
          taxRegistrationId: issuer.taxRegistrationId } }) }];
    },
    onRecorded: async (tx, rows) => {
      assert(rows.length === 1 && supplier !== null);
      const row = rows[0]!;
      await mailApprovalLink(deps, tx, row, supplier);
      await deps.recordEvents(tx, [{ scope: { accountId: input.caller.accountId,
        environment: input.caller.environment }, event: {
        type: 'TAX_INVOICE_REVERSE_ISSUANCE_REQUESTED',
        data: { issuanceKey: row.issuanceKey, issueDeadline: row.issueDeadline },
      } }]);
    },
  };
}

async function request(deps: Deps, input: RequestInput) {
  const accepted = await deps.accept(await acceptRequestOf(deps, input), deps.unitPoints);
  return { issuanceKey: accepted.issuanceKeys[0]! };
}

// What request would answer, without its effect (POST /v1/taxInvoices/issueRequests:validate):
// the same steps (acceptance.ts, validate), answered with the document the supplier would be
// asked to issue and the price charged now, or the error the request would give. Nothing is
// charged, claimed, recorded or mailed.
async function validateRequest(deps: Deps, input: RequestInput) {
  const { issuer, drafts, points } = await deps.accept.validate(
    await acceptRequestOf(deps, input), deps.unitPoints);
  return {
    valid: true as const,
    supplier: { issuerId: issuer.id, identificationNumber: issuer.identificationNumber },
    documents: drafts.map(validatedDocument),
    price: { operation: 'taxInvoices.issue' as const, points },
  };
}

// A ten-minute link to the approval page, only for a request the supplier can approve now.
async function grant(deps: Deps, input: { scope: Scope; issuanceKey: string }) {
  const row = await requireRequest(deps, input.scope, input.issuanceKey);
  await requireApprovable(deps, row, 'opened for approval');
  await deps.issuers.requireIssuerCertificate(input.scope, row.supplierKey, 'REVERSE_APPROVAL');
  const expiresAt = new Date(deps.now().getTime() + GRANT_LINK_TTL_MS);
  const link = await deps.db.transaction((tx) => deps.links.createLink(tx, {
    issuanceKey: row.issuanceKey, channel: 'GRANT', expiresAt }));
  return { url: link.url, expiresAt: link.expiresAt.toISOString() };
}

type SupplierInput = { scope: Scope; supplierKey: string; issuanceKey: string };

// The request, when the Supplier-Key names its supplier; a request of another supplier does
// not exist for this one.
async function requireSuppliersRequest(deps: Deps, input: SupplierInput) {
  const issuer = await deps.issuers.resolveSupplierKey(input.scope, input.supplierKey);
  const row = await requireRequest(deps, input.scope, input.issuanceKey);
  if (row.issuerId !== issuer.id) {
    throw new ApiError('NOT_FOUND', 'The supplier the Supplier-Key names has no reverse ' +
      'issuance request with this issuance key.');
  }
  return row;
}

// Who decides: the API by default; the dashboard says so itself.
type Decider = { actor?: store.Actor };

async function approve(deps: Deps, input: SupplierInput & Decider) {
  const row = await requireSuppliersRequest(deps, input);
  const approved = await approveRequest(deps, row, { actor: input.actor ?? 'API' });
  return { issuanceKey: approved.issuanceKey, status: 'APPROVED' as const };
}

async function refuse(deps: Deps, input: SupplierInput & Decider & { reason: string | null }) {
  const row = await requireSuppliersRequest(deps, input);
  const refused = await refuseRequest(deps, row, { actor: input.actor ?? 'API',
    reason: input.reason });
  return { issuanceKey: refused.issuanceKey, status: 'REFUSED' as const };
}

async function cancel(deps: Deps, input: { scope: Scope; issuanceKey: string;
  actor?: store.Actor }) {
  const row = await requireRequest(deps, input.scope, input.issuanceKey);
  const canceled = await cancelRequest(deps, row.issuanceKey, input.actor);
  return { issuanceKey: canceled.issuanceKey };
}

// The dashboard's decisions: a signed-in user finds the request by the scope, and decides as
// the supplier the request names, with the same check as the API's (approve, refuse): the
// request's Supplier-Key must name an issuer of the scope, and that issuer must be the
// request's. Today every supplier a request names is an issuer of the requesting account; the
// check keeps a request of another account's supplier undecidable here if that ever changes.
type ScopedDecision = { scope: Scope; issuanceKey: string; actor: store.Actor };

async function asSupplier(deps: Deps, input: ScopedDecision): Promise<SupplierInput & Decider> {
  const row = await requireRequest(deps, input.scope, input.issuanceKey);
  return { scope: input.scope, supplierKey: row.supplierKey, issuanceKey: row.issuanceKey,
    actor: input.actor };
}

async function approveInScope(deps: Deps, input: ScopedDecision) {
  return approve(deps, await asSupplier(deps, input));
}

async function refuseInScope(deps: Deps, input: ScopedDecision & { reason: string | null }) {
  return refuse(deps, { ...await asSupplier(deps, input), reason: input.reason });
}

// The request a page link opens, while it can still be decided.
async function openApprovalPage(deps: Deps, { token }: { token: string }):
Promise<ApprovalPageView> {
  const link = await deps.links.usableLink(deps.db, token);
  const row = await store.findInvoiceByKey(deps.db, link.issuanceKey);
  assert(row !== null && row.issuanceType === 'REVERSE');
  await requireApprovable(deps, row, 'opened for approval');
  return { issuanceKey: row.issuanceKey, environment: row.environment, invoice: row.invoice,
    totals: { supplyCost: row.supplyCostTotal, tax: row.taxTotal, total: row.totalAmount },
    issueDeadline: row.issueDeadline };
}

// A decision posted from the page; the link is used up in the decision's transaction.
async function decideOnPage(deps: Deps, { token, decision }: { token: string;
  decision: PageDecision }) {
  const link = await deps.links.usableLink(deps.db, token);
  const row = await store.findInvoiceByKey(deps.db, link.issuanceKey);
  assert(row !== null && row.issuanceType === 'REVERSE');
  const actor = link.channel === 'EMAIL' ? 'EMAIL' : 'APPROVAL_PAGE';
  const withDecision = (tx: Tx) => deps.links.useLink(tx, link.tokenHash);
  const decided = decision.kind === 'approve'
    ? await approveRequest(deps, row, { actor, withDecision })
    : await refuseRequest(deps, row, { actor, reason: decision.reason, withDecision });
  return { issuanceKey: decided.issuanceKey, status: decided.status };
}

export function createReverseIssuanceService(base: ReverseIssuanceDeps) {
  const deps: Deps = { ...base, links: createApprovalLinks(base) };
  return {
    request: (input: RequestInput) => request(deps, input),
    validateRequest: (input: RequestInput) => validateRequest(deps, input),
    grant: (input: { scope: Scope; issuanceKey: string }) => grant(deps, input),
    approve: (input: SupplierInput) => approve(deps, input),
    refuse: (input: SupplierInput & { reason: string | null }) => refuse(deps, input),
    cancel: (input: { scope: Scope; issuanceKey: string; actor?: store.Actor }) =>
      cancel(deps, input),
    approveInScope: (input: ScopedDecision) => approveInScope(deps, input),
    refuseInScope: (input: ScopedDecision & { reason: string | null }) =>
      refuseInScope(deps, input),
    openApprovalPage: (input: { token: string }) => openApprovalPage(deps, input),
    decideOnPage: (input: { token: string; decision: PageDecision }) =>
      decideOnPage(deps, input),
  };
}

export type ReverseIssuanceService = ReturnType<typeof createReverseIssuanceService>;
