import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import type { PortalInvoice, TaxPortal } from '../../upstream/tax-portal/index.ts';
import {
  pullJobDefinition,
  runPull,
  type ConnectionsService,
  type Pull,
  type PullFailure,
} from '../connections/index.ts';
import { COLLECTION_QUEUE, monthsBetween } from './service.ts';
import * as store from './store.ts';

// The collection job (docs/revenue-expense.md § Collections): logs in to the tax portal with the
// connection's credentials, fetches the months of the collection, and records them in the
// books in batches, each batch in its own transaction. A job that dies midway is run again by
// pg-boss; recording is idempotent (the same content keeps its position), so the rerun only
// finishes the work.

const RECORD_BATCH_ROWS = 500;

type JobDeps = {
  db: Db;
  connections: ConnectionsService;
  portalFor(environment: Environment): TaxPortal | null;
  timeoutMs: number;
  now: () => Date;
  log: Logger;
};

function toEntry(invoice: PortalInvoice): store.BookEntry {
  const counterpart = invoice.direction === 'SALES' ? invoice.recipient : invoice.supplier;
  return {
    direction: invoice.direction, source: 'COLLECTED', approvalNumber: invoice.approvalNumber,
    issuanceKey: null, writeDate: invoice.writeDate, issueDate: invoice.issueDate,
    counterpartNumber: counterpart.businessRegistrationNumber, counterpartName: counterpart.name,
    supplyCost: invoice.supplyCost, tax: invoice.tax, totalAmount: invoice.totalAmount,
    taxType: invoice.taxType, amendmentReason: invoice.amendment?.reason ?? null,
    originalApprovalNumber: invoice.amendment?.originalApprovalNumber ?? null,
    status: invoice.status, late: invoice.late,
  };
}

type Collected = Extract<Awaited<ReturnType<TaxPortal['collect']>>, { kind: 'collected' }>;

// Records the collected invoices a batch at a time, then ends the collection SUCCEEDED.
async function finishCollection(deps: JobDeps, row: store.CollectionRow, scope: Scope,
  answer: Collected) {
  const { db } = deps;
  const totals = { inserted: 0, updated: 0, unchanged: 0 };
  const entries = answer.invoices.map(toEntry);
  for (let start = 0; start < entries.length; start += RECORD_BATCH_ROWS) {
    const counts = await db.transaction((tx) => store.recordEntries(tx, scope,
      entries.slice(start, start + RECORD_BATCH_ROWS), deps.now()));
    totals.inserted += counts.inserted;
    totals.updated += counts.updated;
    totals.unchanged += counts.unchanged;
  }
  await db.transaction(async (tx) => {
    await store.updateCollection(tx, row.id, { state: 'SUCCEEDED',
      collectedCount: entries.length, insertedCount: totals.inserted,
      updatedCount: totals.updated, unchangedCount: totals.unchanged,
      finishedAt: deps.now() });
    await deps.connections.recordSync(tx, row.connectionId, { syncedAt: deps.now() });
  });
  deps.log.info({ collectionId: row.id, ...totals }, 'revenue/expense collection finished');
}

// Ends the collection FAILED; a login the portal refused marks the connection FAILED too.
async function failCollection(deps: JobDeps, row: store.CollectionRow, failure: PullFailure) {
  await deps.db.transaction(async (tx) => {
    await store.updateCollection(tx, row.id, { state: 'FAILED', failureCode: failure.code,
      failureMessage: failure.message, finishedAt: deps.now() });
    if (failure.connectionFailed) {
      await deps.connections.recordSync(tx, row.connectionId, { state: 'FAILED',
        failureCode: failure.code, failureMessage: failure.message });
    }
  });
}

export function createCollectionRunner(deps: JobDeps) {
  const pull: Pull<store.CollectionRow, 'HOMETAX', Collected> = {
    kind: 'HOMETAX',
    find: (id) => store.findCollectionById(deps.db, id),
    async fetch(row, scope, credentials) {
      await store.updateCollection(deps.db, row.id, { state: 'RUNNING', startedAt: deps.now() });
      const portal = deps.portalFor(scope.environment);
      if (portal === null) return { kind: 'unavailable' };
      const previousCollections = await store.countSucceeded(deps.db, row.connectionId);
      return portal.collect({ credentials: credentials.portal,
        months: monthsBetween(row.fromMonth, row.toMonth), previousCollections },
      AbortSignal.timeout(deps.timeoutMs));
    },
    record: (row, scope, answer) => finishCollection(deps, row, scope, answer),
    fail: (row, _scope, failure) => failCollection(deps, row, failure),
    removedMessage: 'The connection was removed before the collection ran.',
    unavailable: { code: 'PORTAL_UNAVAILABLE',
      message: 'The tax portal could not be reached. Request the collection again later.' },
  };
  return { run: (collectionId: string) => runPull(deps.connections, pull, collectionId) };
}

export function collectionJobDefinition(runner: ReturnType<typeof createCollectionRunner>,
  timeoutMs: number): JobDefinition<{ collectionId: string }> {
  return pullJobDefinition({ queue: COLLECTION_QUEUE, timeoutMs,
    run: (data: { collectionId: string }) => runner.run(data.collectionId) });
}
