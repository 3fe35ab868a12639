import type { PageCursors } from '../../../platform/cursor.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { bulkCompletion, createBulkAcceptance } from '../../../platform/bulks/bulks.ts';
import { acceptedView, createBulkRetrieval } from '../../../platform/bulks/views.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { RecordEvents } from '../../../platform/events.ts';
import type { Caller } from '../../../platform/scope.ts';
import { createPartChecker } from '../../../platform/validation.ts';
import { CASH_RECEIPT_STATUSES, IssueBody, IssueHeaders, type IssueInput } from '../schemas.ts';
import type { CashReceiptsService } from '../service.ts';
import * as store from '../store.ts';

// Bulk issuance of cash receipts (docs/bulk-issuance.md): up to 100 receipts in one request,
// each accepted by the single issue's own service (service.ts `issue`), so each gets exactly
// what its own POST /v1/cashReceipts/issue would get (its checks, its reference id's
// replay-or-conflict rule, its charge) and is refused alone. A bulk taken over from a process
// that died accepts its items again: each item's reference id replays what it got then.

const BULK_ISSUE_ROUTE = '/v1/cashReceipts:bulkIssue';

// Decided by the tax authority: approved (transmission follows, the next day in production) or
// not.
const FINAL_STATES: ReadonlySet<string> = new Set(['ISSUED', 'TRANSMITTED', 'FAILED']);

export type CashReceiptBulkItem = {
  clientReferenceId: string;
  supplierKey: string;
  document: unknown;
};

type BulkDeps = {
  db: Db;
  now: () => Date;
  issue: CashReceiptsService['issue'];
  cursors: PageCursors;
  recordEvents: RecordEvents;
};

const checkBody = createPartChecker(IssueBody, 'body');
const checkHeaders = createPartChecker(IssueHeaders, 'headers');

export function createCashReceiptBulkService(deps: BulkDeps) {
  const { db } = deps;
  const acceptance = createBulkAcceptance({ db, now: deps.now, kind: 'CASH_RECEIPT' });
  const retrieval = createBulkRetrieval({ db, kind: 'CASH_RECEIPT', cursors: deps.cursors,
    list: 'cashReceipts.bulks', states: CASH_RECEIPT_STATUSES,
    statusesOf: (executor, scope, keys) => store.statusesByKeys(executor, keys, scope) });

  // One item as its single request: the body, then the headers, as the route checks them.
  async function issueOne(caller: Caller, item: CashReceiptBulkItem) {
    const problem = checkBody(item.document) ?? checkHeaders({
      'supplier-key': item.supplierKey, 'service-client-reference-id': item.clientReferenceId });
    if (problem !== null) throw new ApiError('INVALID_REQUEST', problem);
    return deps.issue({ caller, supplierKey: item.supplierKey,
      referenceId: item.clientReferenceId, body: item.document as IssueInput });
  }

  async function bulkIssue(input: { caller: Caller; referenceId: string;
    items: readonly CashReceiptBulkItem[] }) {
    const row = await acceptance.accept({ caller: input.caller, referenceId: input.referenceId,
      route: BULK_ISSUE_ROUTE, items: input.items,
      issueOne: (item) => issueOne(input.caller, item) });
    return acceptedView(row);
  }

  const completion = bulkCompletion({ db, now: deps.now, kind: 'CASH_RECEIPT',
    name: 'cash-receipt-bulk-completion', recordEvents: deps.recordEvents,
    statusesOf: (executor, keys) => store.statusesByKeys(executor, keys),
    states: CASH_RECEIPT_STATUSES, isFinal: (status) => FINAL_STATES.has(status),
    eventOf: (bulk) => ({ type: 'CASH_RECEIPT_BULK_COMPLETED', data: bulk }) });

  return { bulkIssue, getBulk: retrieval.get, listBulks: retrieval.list, completion };
}

export type CashReceiptBulkService = Omit<ReturnType<typeof createCashReceiptBulkService>,
  'completion'>;
