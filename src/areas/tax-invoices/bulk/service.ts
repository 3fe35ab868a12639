import type { PageCursors } from '../../../platform/cursor.ts';
import type { Db } from '../../../platform/db/connect.ts';
import { bulkCompletion, createBulkAcceptance } from '../../../platform/bulks/bulks.ts';
import { acceptedView, createBulkRetrieval } from '../../../platform/bulks/views.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { RecordEvents } from '../../../platform/events.ts';
import { createPartChecker } from '../../../platform/validation.ts';
import type { Caller } from '../../../platform/scope.ts';
import type { IssuanceService } from '../issuance/service.ts';
import { IssueBody, IssueHeaders, TAX_INVOICE_STATUSES, type Invoice } from '../schemas.ts';
import * as store from '../store.ts';

// Bulk issuance of tax invoices (docs/bulk-issuance.md): up to 100 documents in one request,
// each accepted by the single issue's own service (issuance/service.ts `issue`), so each gets
// exactly what its own POST /v1/taxInvoices/issue would get (its checks, its reference id's
// never-reusable rule, its charge) and is refused alone. The bulk's reference id, its items'
// outcomes and its completion are the platform's bulk mechanism (platform/bulks/).

const BULK_ISSUE_ROUTE = '/v1/taxInvoices:bulkIssue';

// A document leaves these states only by a person's or an amendment's request.
const FINAL_STATES: ReadonlySet<string> = new Set(['TRANSMITTED', 'FAILED', 'CANCELED']);

export type TaxInvoiceBulkItem = {
  clientReferenceId: string;
  supplierKey: string;
  document: unknown;
};

type BulkDeps = {
  db: Db;
  now: () => Date;
  issue: IssuanceService['issue'];
  cursors: PageCursors;
  recordEvents: RecordEvents;
};

const checkBody = createPartChecker(IssueBody, 'body');
const checkHeaders = createPartChecker(IssueHeaders, 'headers');

export function createTaxInvoiceBulkService(deps: BulkDeps) {
  const { db } = deps;
  const acceptance = createBulkAcceptance({ db, now: deps.now, kind: 'TAX_INVOICE' });
  const retrieval = createBulkRetrieval({ db, kind: 'TAX_INVOICE', cursors: deps.cursors,
    list: 'taxInvoices.bulks', states: TAX_INVOICE_STATUSES,
    statusesOf: (executor, scope, keys) => store.statusesByKeys(executor, keys, scope) });

  // One item as its single request: the body, then the headers, as the route checks them.
  async function issueOne(caller: Caller, item: TaxInvoiceBulkItem, resumeSince: Date | null) {
    if (resumeSince !== null) {
      // Taken over from a process that died: a document this item's reference id made since
      // the bulk began is the item's (its reference id is never reused, so nothing else made
      // it after that).
      const [earlier] = await store.findByReferenceId(db, caller.apiKeyId,
        item.clientReferenceId);
      if (earlier !== undefined && earlier.createdAt >= resumeSince) {
        return { issuanceKey: earlier.issuanceKey };
      }
    }
    const problem = checkBody(item.document) ?? checkHeaders({
      'supplier-key': item.supplierKey, 'service-client-reference-id': item.clientReferenceId });
    if (problem !== null) throw new ApiError('INVALID_REQUEST', problem);
    return deps.issue({ caller, supplierKey: item.supplierKey,
      referenceId: item.clientReferenceId, body: item.document as Invoice });
  }

  // Accepts every item and answers each one's outcome; the same reference id and items answer
  // the same bulk again, without acting twice.
  async function bulkIssue(input: { caller: Caller; referenceId: string;
    items: readonly TaxInvoiceBulkItem[] }) {
    const row = await acceptance.accept({ caller: input.caller, referenceId: input.referenceId,
      route: BULK_ISSUE_ROUTE, items: input.items,
      issueOne: (item, resumeSince) => issueOne(input.caller, item, resumeSince) });
    return acceptedView(row);
  }

  const completion = bulkCompletion({ db, now: deps.now, kind: 'TAX_INVOICE',
    name: 'tax-invoice-bulk-completion', recordEvents: deps.recordEvents,
    statusesOf: (executor, keys) => store.statusesByKeys(executor, keys),
    states: TAX_INVOICE_STATUSES, isFinal: (status) => FINAL_STATES.has(status),
    eventOf: (bulk) => ({ type: 'TAX_INVOICE_BULK_COMPLETED', data: bulk }) });

  return { bulkIssue, getBulk: retrieval.get, listBulks: retrieval.list, completion };
}

export type TaxInvoiceBulkService = Omit<ReturnType<typeof createTaxInvoiceBulkService>,
  'completion'>;
