import { seoulDate } from '../../../domain/business-days.ts';
import type { Db, Tx } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { Caller, Scope } from '../../../platform/scope.ts';
import type { Static } from '@fastify/type-provider-typebox';
import { validateInvoice } from '../acceptance/validation.ts';
import type { HolidayCalendar } from '../holidays/calendar.ts';
import { endWithoutIssuance, type LifecycleDeps } from '../lifecycle.ts';
import {
  type Invoice,
  type StandardIssueBody,
  type Supplied,
} from '../schemas.ts';
import * as store from '../store.ts';
import { draftPreview, validatedDocument, type Accept } from '../acceptance/accept.ts';
import type { IssueValidation } from './schemas.ts';

// Issuing tax invoices (docs/tax-invoices.md): the issue request, its validation and preview
// without effect, and cancellation before transmission. Reading them is retrieval/'s. Everything
// is scoped to the calling key's account and environment; a document of another scope is 404
// NOT_FOUND, never 403.

// The recipient fields of a counterparty of the book (the counterparties area), for an issuance
// whose `supplied` names one; throws ApiError when the scope has no such counterparty or it may
// not receive invoices (it is closed).
export type RecipientOf = (scope: Scope, counterpartyId: string) =>
  Promise<Omit<Supplied, 'managers'> & { managers: Supplied['managers'] | [] }>;

type IssuanceDeps = LifecycleDeps & {
  // Absent when no counterparty book is wired (then a counterpartyId is refused).
  recipientOf?: RecipientOf;
  db: Db;
  accept: Accept;
  // Points per document (the price table's taxInvoices.issue).
  unitPoints: number;
  holidays: Pick<HolidayCalendar, 'added'>;
  now: () => Date;
};

const ISSUE_ROUTE = '/v1/taxInvoices/issue';

const NO_SUCH_INVOICE = 'No tax invoice has this issuance key.';

type IssueInput = { caller: Caller; supplierKey: string; referenceId: string | undefined;
  body: Invoice;
  // A request that issues something kept (a draft, src/areas/drafts/): the route its reference
  // id's fingerprint names, and its own work in the transaction that records the document
  // (acceptance/accept.ts: guard before, onRecorded after), which commits with it or not at all.
  route?: string;
  guard?(tx: Tx): Promise<void>;
  onRecorded?(tx: Tx, issuanceKeys: string[]): Promise<void>;
};

// The document of an issue request whose recipient may be named by a counterparty: its fields
// copied in from the book. The request's fingerprint stays that of the body as sent.
async function resolveRecipient(deps: IssuanceDeps, caller: Caller, body: StandardIssueBody):
Promise<Invoice> {
  const { supplied } = body;
  if (!('counterpartyId' in supplied)) return { ...body, supplied };
  if (deps.recipientOf === undefined) {
    throw new ApiError('INVALID_REQUEST', 'body.supplied.counterpartyId is not accepted here.');
  }
  const recipient = await deps.recipientOf(
    { accountId: caller.accountId, environment: caller.environment }, supplied.counterpartyId);
  const managers = supplied.managers ?? recipient.managers;
  if (managers.length === 0) {
    throw new ApiError('INVALID_REQUEST', 'body.supplied.managers is required: the ' +
      'counterparty has no manager to send the invoice to.');
  }
  return { ...body, supplied: { ...recipient, managers: managers as Supplied['managers'] } };
}

// The acceptance request of an issuance: the document validated as the issue route requires.
async function issueRequest(deps: IssuanceDeps, input: IssueInput):
Promise<Parameters<Accept>[0]> {
  const today = seoulDate(deps.now());
  const holidays = await deps.holidays.added();
  return {
    caller: input.caller, supplierKey: input.supplierKey, referenceId: input.referenceId,
    route: input.route ?? ISSUE_ROUTE, body: input.body, issuanceType: 'STANDARD',
    ...(input.guard === undefined ? {} : { guard: input.guard }),
    ...(input.onRecorded === undefined ? {} : { onRecorded: (tx: Tx,
      rows: store.NewTaxInvoiceRow[]) => input.onRecorded!(tx,
      rows.map((row) => row.issuanceKey!)) }),
    consignor: () => (input.body.broker == null ? null
      : input.body.supplier.identificationNumber),
    draft: (issuer, supplierPeriods) => [{ amendment: null, validated: validateInvoice(
      input.body, { today, amounts: 'forward', deadline: 'enforced', holidays, supplierPeriods,
      supplier: { identificationNumber: issuer.identificationNumber,
        taxRegistrationId: issuer.taxRegistrationId } }) }],
  };
}

// What issue would answer, without its effect: the same request, checked by the same steps
// (acceptance/accept.ts, validate), and nothing charged, claimed or recorded.
async function validateIssue(deps: IssuanceDeps, input: IssueInput):
Promise<Static<typeof IssueValidation>> {
  const { issuer, drafts, points } = await deps.accept.validate(
    await issueRequest(deps, input), deps.unitPoints);
  return {
    valid: true,
    supplier: { issuerId: issuer.id, identificationNumber: issuer.identificationNumber },
    documents: drafts.map(validatedDocument),
    price: { operation: 'taxInvoices.issue', points },
  };
}

export function createIssuanceService(deps: IssuanceDeps) {
  const { db } = deps;
  async function requireInvoice(scope: Scope, issuanceKey: string) {
    const row = await store.findInvoice(db, scope, issuanceKey);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_INVOICE);
    return row;
  }

  // The issue route's request: the recipient by its fields or by a counterparty.
  async function issue(input: Omit<IssueInput, 'body'> & { body: StandardIssueBody }) {
    const body = await resolveRecipient(deps, input.caller, input.body);
    const request = await issueRequest(deps, { ...input, body });
    const accepted = await deps.accept({ ...request, body: input.body }, deps.unitPoints);
    return { issuanceKey: accepted.issuanceKeys[0]! };
  }

  // The document an issuance would make, checked as issue checks it; nothing is kept or
  // charged.
  const previewIssue = async (input: IssueInput) =>
    (await deps.accept.preview(await issueRequest(deps, input))).map(draftPreview);

  // Withdraws an issued document before it is transmitted; afterwards only an
  // amendment can change it. Its points are refunded.
  async function cancel(input: { scope: Scope; issuanceKey: string; actor?: store.Actor }) {
    const row = await requireInvoice(input.scope, input.issuanceKey);
    const canceled = await db.transaction((tx) => endWithoutIssuance(deps, tx, {
      issuanceKey: row.issuanceKey, from: ['PENDING', 'ISSUED'], to: 'CANCELED',
      actor: input.actor ?? 'API',
      message: 'Canceled by the supplier before transmission.' }));
    if (canceled === null) {
      const current = await requireInvoice(input.scope, input.issuanceKey);
      throw new ApiError('TAX_INVOICE_NOT_CANCELABLE', `The tax invoice is ${current.status}; ` +
        'only a PENDING or ISSUED invoice can be canceled. A transmitted invoice is changed ' +
        'by an amendment.');
    }
    return { issuanceKey: canceled.issuanceKey, status: canceled.status };
  }

  return { issue, previewIssue,
    validateIssue: async (input: Omit<IssueInput, 'body'> & { body: StandardIssueBody }) =>
      validateIssue(deps, { ...input, body: await resolveRecipient(deps, input.caller,
        input.body) }),
    cancel };
}

export type IssuanceService = ReturnType<typeof createIssuanceService>;
