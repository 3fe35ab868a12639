import type { TSchema } from '@fastify/type-provider-typebox';
import type { PageCursors } from '../cursor.ts';
import type { Db, Executor, Tx } from '../db/connect.ts';
import type { DueWorkDefinition } from '../due-work.ts';
import { ApiError } from '../errors.ts';
import type { EventInput } from '../event-catalogue.ts';
import type { RecordEvents } from '../events.ts';
import type { Caller, Scope } from '../scope.ts';
import { createPartChecker } from '../validation.ts';
import { bulkCompletion, createBulkAcceptance, type BulkCounts, type ItemPlace } from
  './bulks.ts';
import type { ItemReferenceId } from './schemas.ts';
import * as store from './store.ts';
import type { BulkKind } from './tables.ts';
import { acceptedView, createBulkRetrieval } from './views.ts';

// Bulk issuance of one document area (docs/bulk-issuance.md), built from what the area passes
// in: its single issue's service function and request schemas, its documents' states and
// their lookup, the completion event. Each item is checked with the single route's own schemas
// and handed to the single issue's service, so every rule (the reference id's, the charge's,
// the counterparty's) has one implementation and an item gets exactly what its own request
// would get. The platform never imports an area: this is the mechanism, the area's bulk/
// folder its configuration.

// One document's request as its single route hands it to the area's service. `onRecorded`
// runs in the transaction that records the document (an item without a reference id of its
// own links its document to the bulk there).
type SingleIssueInput = {
  caller: Caller;
  supplierKey: string;
  referenceId: string | undefined;
  body: unknown;
  onRecorded?(tx: Tx, issuanceKeys: string[]): Promise<void>;
};

export type BulkIssueItem = {
  clientReferenceId?: string | undefined;
  supplierKey: string;
  document: unknown;
};

export type BulkIssuanceDeps = {
  db: Db;
  now: () => Date;
  cursors: PageCursors;
  recordEvents: RecordEvents;
};

export type BulkIssuanceConfig = {
  kind: BulkKind;
  // The bulk route, for the fingerprint of the bulk's reference id.
  route: string;
  // The cursor list's name, so a cursor opens only in its own list.
  list: string;
  // Whether an item's own reference id is required, as the single request's header is.
  itemReferenceId: ItemReferenceId;
  // The single issue: its request parts' schemas (each item is checked with them, as that route
  // checks a request) and its service function.
  single: { body: TSchema; headers: TSchema; issue(input: SingleIssueInput):
    Promise<{ issuanceKey: string }> };
  // Every state of the area's documents, and those a document does not leave by processing.
  states: readonly string[];
  finalStates: ReadonlySet<string>;
  // The area's documents' states by issuance key (of the scope when one is given).
  statusesOf(executor: Executor, issuanceKeys: string[], scope?: Scope):
    Promise<Map<string, string>>;
  // For a bulk taken over from a process that died: the document an item's reference id made
  // since the bulk began, when the area's reference ids do not replay it by themselves (null:
  // none). Absent when the single issue's own reference-id rule answers it.
  earlierDocument?(caller: Caller, referenceId: string, since: Date): Promise<string | null>;
  completion: {
    name: string;
    eventOf(bulk: { bulkId: string; clientReferenceId: string; itemCount: number;
      acceptedCount: number; refusedCount: number; counts: BulkCounts }): EventInput;
  };
};

export function createBulkIssuance(deps: BulkIssuanceDeps, config: BulkIssuanceConfig) {
  const { db, now } = deps;
  const { kind } = config;
  const checkBody = createPartChecker(config.single.body, 'body');
  const checkHeaders = createPartChecker(config.single.headers, 'headers');
  const acceptance = createBulkAcceptance({ db, now, kind });
  const retrieval = createBulkRetrieval({ db, kind, cursors: deps.cursors, list: config.list,
    states: config.states,
    statusesOf: (executor, scope, keys) => config.statusesOf(executor, keys, scope) });

  // What the item made before a take-over: by its reference id where it has one, else by its
  // position in the bulk.
  async function earlier(caller: Caller, item: BulkIssueItem, place: ItemPlace) {
    if (place.resumeSince === null) return null;
    if (item.clientReferenceId === undefined) {
      return store.findItemDocument(db, place.bulkId, place.index);
    }
    return (await config.earlierDocument?.(caller, item.clientReferenceId, place.resumeSince))
      ?? null;
  }

  // One item as its single request: the body, then the headers, as the route checks them.
  async function issueOne(caller: Caller, item: BulkIssueItem, place: ItemPlace) {
    const made = await earlier(caller, item, place);
    if (made !== null) return { issuanceKey: made };
    const referenceId = item.clientReferenceId;
    const problem = checkBody(item.document) ?? checkHeaders({ 'supplier-key': item.supplierKey,
      ...(referenceId === undefined ? {} : { 'service-client-reference-id': referenceId }) });
    if (problem !== null) throw new ApiError('INVALID_REQUEST', problem);
    return config.single.issue({ caller, supplierKey: item.supplierKey, referenceId,
      body: item.document,
      ...(referenceId !== undefined ? {} : { onRecorded: (tx: Tx, keys: string[]) =>
        store.recordItemDocument(tx, { bulkId: place.bulkId, itemIndex: place.index,
          issuanceKey: keys[0]! }) }) });
  }

  // Accepts every item and answers each one's outcome; the same reference id and items answer
  // the same bulk again, without acting twice. `onTaken` is called when a request sent at the
  // same moment made the bulk first, and this one only answers it.
  async function bulkIssue(input: { caller: Caller; referenceId: string;
    items: readonly BulkIssueItem[]; onTaken?: () => Promise<void> }) {
    const row = await acceptance.accept({ caller: input.caller, referenceId: input.referenceId,
      route: config.route, items: input.items,
      issueOne: (item, place) => issueOne(input.caller, item, place), onTaken: input.onTaken });
    return acceptedView(row);
  }

  const completion: DueWorkDefinition = bulkCompletion({ db, now, kind,
    name: config.completion.name, recordEvents: deps.recordEvents,
    statusesOf: (executor, keys) => config.statusesOf(executor, keys),
    states: config.states, isFinal: (status) => config.finalStates.has(status),
    eventOf: config.completion.eventOf });

  return { service: { bulkIssue, isReferenceTaken: acceptance.isTaken, getBulk: retrieval.get,
    listBulks: retrieval.list, browseBulks: retrieval.browse }, completion };
}

// What the routes and the dashboard call: accept a bulk, tell whether its reference id names one
// already, read one, list them (oldest first as the API pages, or newest first with their
// counts for the dashboard).
export type BulkIssuanceService = ReturnType<typeof createBulkIssuance>['service'];
