import { createBulkIssuance, type BulkIssuanceDeps } from
  '../../../platform/bulks/issuance.ts';
import { bulkRoutes } from '../../../platform/bulks/routes.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { CASH_RECEIPT_STATUSES, IssueBody, IssueHeaders, type IssueInput } from '../schemas.ts';
import type { IssuanceService } from '../issuance/service.ts';
import * as store from '../store.ts';

// Bulk issuance of cash receipts (docs/bulk-issuance.md): the platform's bulk issuance
// (platform/bulks/) configured with the single issue, POST /v1/cashReceipts/issue: its body and
// headers check each item, and its service function (service.ts `issue`) accepts it, so each
// receipt gets exactly what its own request would get (its checks, its reference id's
// replay-or-conflict rule, its charge) and is refused alone. An item's reference id is
// required, as the single request's header is; a bulk taken over from a process that died
// accepts its items again and each reference id replays what it got then.

// Decided by the tax authority: approved (transmission follows, the next day in production) or
// not.
const FINAL_STATES: ReadonlySet<string> = new Set(['ISSUED', 'TRANSMITTED', 'FAILED']);

const ITEM_REFERENCE_ID = 'required';

export const cashReceiptBulkRoutes = bulkRoutes({
  resource: 'cashReceipts', what: 'cash receipt', title: 'CashReceiptBulk',
  states: CASH_RECEIPT_STATUSES, itemReferenceId: ITEM_REFERENCE_ID,
  operations: { bulkIssue: 'cashReceipts.bulkIssue', list: 'cashReceipts.bulks.list',
    get: 'cashReceipts.bulks.get', item: 'cashReceipts.issue' },
  operationIds: { bulkIssue: 'bulkIssueCashReceipts', list: 'listCashReceiptBulks',
    get: 'getCashReceiptBulk' },
  summaries: { bulkIssue: 'Issue cash receipts in bulk', list: 'List cash receipt bulks',
    get: 'Get a cash receipt bulk' },
  descriptions: {
    bulkIssue: 'Accepts 1 to 100 cash receipts, each with its own ' +
      '`clientReferenceId` and `supplierKey`, and answers 202 with the `bulkId` and each ' +
      'item\'s outcome: its `issuanceKey`, or the status, code and message its own ' +
      'POST /v1/cashReceipts/issue would have answered. One refused receipt never refuses ' +
      'the others. Each accepted receipt is charged the `cashReceipts.issue` price, as ' +
      'alone; refused ones are not charged. Each item counts as one call of ' +
      '`cashReceipts.issue` against its rate limit: a bulk the rest of that limit cannot ' +
      'cover is refused whole with 429 RATE_LIMITED, accepting nothing. ' +
      '`Service-Client-Reference-Id` (required) names ' +
      'the bulk: the same value with the same items answers the same bulk again without ' +
      'acting twice or counting its items again; with other items, 409 ' +
      'IDEMPOTENCY_CONFLICT. The ' +
      'CASH_RECEIPT_BULK_COMPLETED webhook follows once the tax authority decided every ' +
      'accepted receipt.',
    get: 'The bulk\'s status, how many of its receipts are in each state, and each ' +
      'item\'s outcome with its receipt\'s state now. A bulk of another account or ' +
      'environment is 404 NOT_FOUND.',
  },
  commonErrors: COMMON_ERRORS,
});

export function createCashReceiptBulks(deps: BulkIssuanceDeps &
  { issue: IssuanceService['issue'] }) {
  return createBulkIssuance(deps, {
    kind: 'CASH_RECEIPT', route: '/v1/cashReceipts:bulkIssue', list: 'cashReceipts.bulks',
    itemReferenceId: ITEM_REFERENCE_ID,
    single: { body: IssueBody, headers: IssueHeaders,
      // The header check refuses an item without a reference id before this is called.
      issue: (input) => deps.issue({ caller: input.caller, supplierKey: input.supplierKey,
        referenceId: input.referenceId!, body: input.body as IssueInput }) },
    states: CASH_RECEIPT_STATUSES, finalStates: FINAL_STATES,
    statusesOf: (executor, keys, scope) => store.statusesByKeys(executor, keys, scope),
    completion: { name: 'cash-receipt-bulk-completion',
      eventOf: (bulk) => ({ type: 'CASH_RECEIPT_BULK_COMPLETED', data: bulk }) },
  });
}
