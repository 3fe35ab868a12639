import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { RecordIssuedInvoices } from '../../platform/issued-invoices.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { ConnectionsModule } from '../connections/index.ts';
import { collectionJobDefinition, createCollectionRunner } from './collection-job.ts';
import { registerRevenueExpenseRoutes } from './routes.ts';
import { createRevenueExpensesService, type RevenueExpensesService } from './service.ts';
import { findCollectedSalesByTotals } from './store.ts';
import type { Scope } from '../../platform/scope.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Revenue and expense',
    description: 'The books: tax invoices collected from the tax portal.',
    guides: [
      { path: 'docs/revenue-expense.md', title: 'Revenue and expense' },
    ],
  },
];

// Revenue and expense books (docs/revenue-expense.md): own tax invoices in the order of change,
// from invoices issued through etax (recordIssuedInvoices, which the tax-invoices area calls in
// its transactions) and from collections through the HOMETAX connection.
//
//   routes.ts, schemas.ts   the feed, collection requests and their state
//   service.ts              the rules; collection-job.ts the collection job
//   store.ts, tables.ts     the books, the change counters, the collections
//
// The tax portal is src/upstream/tax-portal (sandbox for test keys, the operator's gateway for
// live keys), built by the connections module.

export type { RevenueExpensesService };
// The API's body of a collection request, so the dashboard refuses what the API refuses.
export { CollectBody } from './schemas.ts';

// Sales collected from the tax portal of a scope by total, for the bank transactions area's
// matching hints.
export type CollectedSalesByTotals = (scope: Scope, totals: readonly number[], from: string,
  to: string) => Promise<Array<{ approvalNumber: string; totalAmount: number; writeDate: string;
  counterpartName: string }>>;

export type RevenueExpensesModule = AreaModule & { service: RevenueExpensesService;
  recordIssuedInvoices: RecordIssuedInvoices; collectedSalesByTotals: CollectedSalesByTotals };

export function createRevenueExpensesModule(platform: AreaPlatform,
  deps: { connections: ConnectionsModule }): RevenueExpensesModule {
  const { config, database: { db } } = platform;
  const connections = deps.connections.service;
  const service = createRevenueExpensesService({ db, stage: platform.jobs.stage, connections,
    portalAvailable: (environment) => deps.connections.taxPortalFor(environment) !== null,
    now: platform.outside.now, cursors: platform.cursors });
  const runner = createCollectionRunner({ db, connections,
    portalFor: deps.connections.taxPortalFor, timeoutMs: config.CONNECTION_GATEWAY_TIMEOUT_MS,
    now: platform.outside.now, log: platform.log });
  return {
    name: 'revenue-expenses',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerRevenueExpenseRoutes, { books: service }),
    jobs: [collectionJobDefinition(runner, config.CONNECTION_GATEWAY_TIMEOUT_MS)] as
      AreaModule['jobs'],
    service,
    recordIssuedInvoices: service.recordIssuedInvoices,
    collectedSalesByTotals: (scope, totals, from, to) =>
      findCollectedSalesByTotals(db, scope, totals, from, to),
  };
}
