import { createBulkIssuance, type BulkIssuanceDeps } from
  '../../../platform/bulks/issuance.ts';
import { bulkRoutes } from '../../../platform/bulks/routes.ts';
import type { IssuanceService } from '../issuance/service.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import {
  IssueHeaders,
  StandardIssueBody,
  TAX_INVOICE_STATUSES,
  type StandardIssueBody as StandardIssueBodyType,
} from '../schemas.ts';
import * as store from '../store.ts';

// Bulk issuance of tax invoices (docs/bulk-issuance.md): the platform's bulk issuance
// (platform/bulks/) configured with the single issue, POST /v1/taxInvoices/issue: its body and
// headers check each item, and its service function (issuance/service.ts `issue`) accepts it,
// so each document gets exactly what its own request would get (its checks, the recipient by a
// counterparty, its reference id's never-reusable rule, its charge) and is refused alone. An
// item's reference id is optional, as the single request's header is.

// A document leaves these states only by a person's or an amendment's request.
const FINAL_STATES: ReadonlySet<string> = new Set(['TRANSMITTED', 'FAILED', 'CANCELED']);

const ITEM_REFERENCE_ID = 'optional';

export const taxInvoiceBulkRoutes = bulkRoutes({
  resource: 'taxInvoices', what: 'tax invoice', title: 'TaxInvoiceBulk',
  states: TAX_INVOICE_STATUSES, itemReferenceId: ITEM_REFERENCE_ID,
  operations: { bulkIssue: 'taxInvoices.bulkIssue', list: 'taxInvoices.bulks.list',
    get: 'taxInvoices.bulks.get', item: 'taxInvoices.issue' },
  operationIds: { bulkIssue: 'bulkIssueTaxInvoices', list: 'listTaxInvoiceBulks',
    get: 'getTaxInvoiceBulk' },
  summaries: { bulkIssue: 'Issue tax invoices in bulk', list: 'List tax invoice bulks',
    get: 'Get a tax invoice bulk' },
  descriptions: {
    bulkIssue: 'Accepts 1 to 100 tax invoices, each with its `supplierKey` and, as alone ' +
      'optionally, its own `clientReferenceId`, and answers 202 with the `bulkId` and each ' +
      'item\'s outcome: its `issuanceKey`, or the status, code and message its own ' +
      'POST /v1/taxInvoices/issue would have answered (a recipient named by a closed ' +
      'counterparty is 409 COUNTERPARTY_CLOSED, say). One refused document never refuses ' +
      'the others. Each accepted document is charged the `taxInvoices.issue` price, as ' +
      'alone; refused ones are not charged. Each item counts as one call of ' +
      '`taxInvoices.issue` against its rate limit: a bulk the rest of that limit cannot ' +
      'cover is refused whole with 429 RATE_LIMITED, accepting nothing. ' +
      '`Service-Client-Reference-Id` (required) names ' +
      'the bulk: the same value with the same items answers the same bulk again without ' +
      'acting twice or counting its items again; with other items, 409 ' +
      'IDEMPOTENCY_CONFLICT. The ' +
      'TAX_INVOICE_BULK_COMPLETED webhook follows once every accepted document is final.',
    get: 'The bulk\'s status, how many of its documents are in each state, and each ' +
      'item\'s outcome with its document\'s state now. A bulk of another account or ' +
      'environment is 404 NOT_FOUND.',
  },
  commonErrors: COMMON_ERRORS,
});

export function createTaxInvoiceBulks(deps: BulkIssuanceDeps &
  { issue: IssuanceService['issue'] }) {
  const { db } = deps;
  return createBulkIssuance(deps, {
    kind: 'TAX_INVOICE', route: '/v1/taxInvoices:bulkIssue', list: 'taxInvoices.bulks',
    itemReferenceId: ITEM_REFERENCE_ID,
    single: { body: StandardIssueBody, headers: IssueHeaders,
      issue: (input) => deps.issue({ ...input, body: input.body as StandardIssueBodyType }) },
    states: TAX_INVOICE_STATUSES, finalStates: FINAL_STATES,
    statusesOf: (executor, keys, scope) => store.statusesByKeys(executor, keys, scope),
    // A tax invoice's reference id is never reused, so the document that holds it, made since
    // the bulk began, is the item's.
    async earlierDocument(caller, referenceId, since) {
      const [earlier] = await store.findByReferenceId(db, caller.apiKeyId, referenceId);
      return earlier !== undefined && earlier.createdAt >= since ? earlier.issuanceKey : null;
    },
    completion: { name: 'tax-invoice-bulk-completion',
      eventOf: (bulk) => ({ type: 'TAX_INVOICE_BULK_COMPLETED', data: bulk }) },
  });
}
