import type { Logger } from 'pino';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { JobDefinition } from '../../platform/jobs.ts';
import type { Scope } from '../../platform/scope.ts';
import type { PortalInvoice, TaxPortal } from '../../upstream/tax-portal/index.ts';
import type { ConnectionsService } from '../connections/index.ts';
import { COLLECTION_QUEUE, monthsBetween } from './service.ts';
import * as store from './store.ts';

// The collection job (docs/revenue-expense.md § Collections): logs in to the tax portal with the
// connection's credentials, fetches the months of the collection, and records them in the
// books in batches, each batch in its own transaction. A job that dies midway is run again by
// pg-boss; recording is idempotent (the same content keeps its position), so the rerun only
// finishes the work.

const RECORD_BATCH_ROWS = 500;
const JOB_RETRY_LIMIT = 3;

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

export function createCollectionRunner(deps: JobDeps) {
  const { db } = deps;

  async function fail(id: string, connectionId: string | null, code: string, message: string) {
    await db.transaction(async (tx) => {
      await store.updateCollection(tx, id, { state: 'FAILED', failureCode: code,
        failureMessage: message, finishedAt: deps.now() });
      if (connectionId !== null && code !== 'PORTAL_UNAVAILABLE') {
        await deps.connections.recordSync(tx, connectionId, { state: 'FAILED',
          failureCode: code, failureMessage: message });
      }
    });
  }

  async function run(collectionId: string) {
    const row = await store.findCollectionById(db, collectionId);
    if (row === null || (row.state !== 'QUEUED' && row.state !== 'RUNNING')) return;
    const scope: Scope = { accountId: row.accountId, environment: row.environment as Environment };
    await store.updateCollection(db, row.id, { state: 'RUNNING', startedAt: deps.now() });
    const opened = await deps.connections.openConnection(scope, row.connectionId);
    if (opened === null || opened.credentials.kind !== 'HOMETAX') {
      await fail(row.id, null, 'CONNECTION_REMOVED', 'The connection was removed before the ' +
        'collection ran.');
      return;
    }
    const portal = deps.portalFor(scope.environment);
    const previousCollections = await store.countSucceeded(db, row.connectionId);
    const answer = portal === null ? { kind: 'unavailable' as const }
      : await portal.collect({ credentials: opened.credentials.portal,
        months: monthsBetween(row.fromMonth, row.toMonth), previousCollections },
      AbortSignal.timeout(deps.timeoutMs));
    if (answer.kind === 'unavailable') {
      await fail(row.id, row.connectionId, 'PORTAL_UNAVAILABLE',
        'The tax portal could not be reached. Request the collection again later.');
      return;
    }
    if (answer.kind === 'failed') {
      await fail(row.id, row.connectionId, answer.code, answer.message);
      return;
    }
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

  return { run };
}

export function collectionJobDefinition(runner: ReturnType<typeof createCollectionRunner>,
  timeoutMs: number): JobDefinition<{ collectionId: string }> {
  return {
    queue: COLLECTION_QUEUE,
    options: { policy: 'standard', retryLimit: JOB_RETRY_LIMIT, retryDelay: 30,
      retryBackoff: true, expireInSeconds: Math.ceil(timeoutMs / 1000) + 300 },
    batchSize: 1,
    pollingIntervalSeconds: 1,
    async work(jobs) {
      for (const job of jobs) await runner.run(job.data.collectionId);
    },
  };
}
