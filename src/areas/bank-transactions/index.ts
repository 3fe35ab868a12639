import type { RecordEvents } from '../../platform/events.ts';
import type { AreaModule } from '../../platform/module.ts';
import type { AreaPlatform } from '../../platform/platform.ts';
import type { ReferenceSection } from '../../platform/reference-guides.ts';
import type { ConnectionsModule } from '../connections/index.ts';
import type { CollectedSalesByTotals } from '../revenue-expenses/index.ts';
import type { IssuedInvoicesByTotals } from '../tax-invoices/index.ts';
import { registerBankTransactionRoutes } from './routes.ts';
import { createSyncSchedule, scheduleJobDefinition } from './schedule.ts';
import {
  createBankTransactionsService,
  type BankTransactionsService,
} from './service.ts';
import { createSyncRunner, syncJobDefinition } from './sync-job.ts';

// The sections of the API reference its operations belong to (docs/architecture.md).
const REFERENCE: readonly ReferenceSection[] = [
  {
    tag: 'Bank transactions',
    description: 'Transactions of connected bank accounts, and their matching.',
    guides: [
      { path: 'docs/bank-transactions.md', title: 'Bank transactions' },
    ],
  },
];

// Bank accounts and transactions (docs/bank-transactions.md): the accounts connected through
// BANK_ACCOUNT connections, their transactions in booking order with matching hints, and syncs
// from the bank on request and on a schedule.
//
//   routes.ts, schemas.ts   accounts, transactions, sync requests and their state
//   service.ts              the rules; matching.ts the hints on deposits
//   sync-job.ts             the sync job; schedule.ts the schedule that queues syncs
//   store.ts, tables.ts     the accounts' balances, the transactions, the syncs
//
// The bank is src/upstream/bank-accounts (sandbox for test keys, the operator's gateway for live
// keys), built by the connections module.

export type { BankTransactionsService };
// The id of a scope's bank account, for tools that set accounts up without the API (bench/).
export { bankAccountIdOf } from './service.ts';

export type BankTransactionsModule = AreaModule & { service: BankTransactionsService;
  // Queues the syncs the schedule finds due now; what the schedule's job runs every minute.
  syncDueAccounts(): Promise<number> };

export type BankTransactionsDeps = {
  connections: ConnectionsModule;
  recordEvents: RecordEvents;
  // The tax-invoices area's issued sales invoices, for the matching hints.
  issuedByTotals: IssuedInvoicesByTotals;
  // The books' sales collected from the tax portal, for the same hints.
  collectedSalesByTotals: CollectedSalesByTotals;
};

export function createBankTransactionsModule(platform: AreaPlatform, deps: BankTransactionsDeps):
  BankTransactionsModule {
  const { config, database: { db } } = platform;
  const connections = deps.connections.service;
  const bankAvailable = (environment: 'test' | 'live') =>
    deps.connections.bankAccountsFor(environment) !== null;
  const service = createBankTransactionsService({ db, stage: platform.jobs.stage, connections,
    bankAvailable, sales: { issued: deps.issuedByTotals,
      collected: deps.collectedSalesByTotals }, now: platform.outside.now,
    cursors: platform.cursors });
  const runner = createSyncRunner({ db, connections, bankFor: deps.connections.bankAccountsFor,
    recordEvents: deps.recordEvents, timeoutMs: config.CONNECTION_GATEWAY_TIMEOUT_MS,
    now: platform.outside.now, log: platform.log });
  const schedule = createSyncSchedule({ db, connections, service, bankAvailable,
    intervalMinutes: config.BANK_ACCOUNT_SYNC_INTERVAL_MINUTES, now: platform.outside.now,
    log: platform.log });
  const jobs: AreaModule['jobs'] = [
    syncJobDefinition(runner, config.CONNECTION_GATEWAY_TIMEOUT_MS) as JobOf,
    // Off unless an interval is configured: the queue is not even created.
    ...(config.BANK_ACCOUNT_SYNC_INTERVAL_MINUTES > 0
      ? [scheduleJobDefinition(schedule) as JobOf] : []),
  ];
  return {
    name: 'bank-transactions',
    reference: REFERENCE,
    routes: async (v1) => v1.register(registerBankTransactionRoutes, { bank: service }),
    jobs,
    service,
    syncDueAccounts: schedule.tick,
  };
}

type JobOf = NonNullable<AreaModule['jobs']>[number];
