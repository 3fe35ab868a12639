import type { Plan } from './accounts/keys.ts';

// Every operation of the API in one table: its name (a route's `config.operation`, the counter
// of its rate limit and the name in the RateLimit headers), the price row it is charged from
// and its own rate-limit policy. A name not in this table cannot exist: routes and
// RATE_LIMIT_OVERRIDES are checked against it at start, PRICE_OVERRIDES against the price rows.

export type RateLimitPolicy = { limit: number; windowSeconds: number };

// Points charged per unit of each price row. The unit is named beside each row:
// a successful call, a number returned, a holder found, a document. Several operations may share
// a row (single and bulk lookups). Operators override rows with PRICE_OVERRIDES (docs/points.md);
// the spec's prices are the defaults.
export const DEFAULT_PRICES = {
  'businesses.profiles.retrieve': 90, // per successful retrieval
  'businesses.profiles.search': 9, // per result returned
  'businesses.registrationStatus.inquire': 10, // per number whose status is returned
  'businesses.certificates.verify': 100, // per document MATCHED or NOT_MATCHED
  'bank.holders.inquire': 50, // per account returning a holder name
  'documents.taxAuthority.issue': 500, // per tax authority document
  'documents.registry.viewCopy': 1_000, // per registry view copy
  'documents.registry.submissionCopy': 1_500, // per registry submission copy
  // Not stated by the spec; etax's defaults (docs/points.md § Prices). Charged when the
  // request is accepted and refunded when the document ends without being issued.
  'taxInvoices.issue': 100, // per tax invoice document, amendments and reverse issuance included
  // Not stated by the spec; etax's defaults (docs/cash-receipts.md § Points). Charged when the
  // request is accepted and refunded when the tax authority does not approve it.
  'cashReceipts.issue': 10, // per cash receipt issued
  'cashReceipts.cancel': 10, // per cancellation receipt issued
} as const satisfies Record<string, number>;

export type PriceRow = keyof typeof DEFAULT_PRICES;

// The policy of every operation without its own: 100 calls per second per key stops a runaway
// client loop without getting in the way of real traffic (the spec is silent on these).
export const DEFAULT_RATE_LIMIT: RateLimitPolicy = { limit: 6_000, windowSeconds: 60 };

type OperationRow = {
  // The price row the operation is charged from; absent for free operations.
  price?: PriceRow;
  // The price rows of an operation charged from the row its request chooses (a document by its
  // type); absent otherwise. What reads the table to know whether an operation can spend points
  // (the MCP server's tools, docs/mcp.md) reads this too.
  priceRows?: readonly PriceRow[];
  // The operation's own policy; absent for DEFAULT_RATE_LIMIT.
  rateLimit?: RateLimitPolicy;
  // The lowest plan whose accounts may call it (src/platform/plans.ts); absent for every plan.
  // Below it the call is refused with 403 PLAN_UPGRADE_REQUIRED before any other work.
  minimumPlan?: Plan;
};

export const OPERATIONS = {
  'points.retrieve': {},
  'points.ledger.list': {},

  'bank.holders.inquire': { price: 'bank.holders.inquire' },
  'bank.holders.bulkInquire': { price: 'bank.holders.inquire' },

  // Profile retrieval is limited to 300 calls per minute.
  'businesses.profiles.retrieve': {
    price: 'businesses.profiles.retrieve',
    rateLimit: { limit: 300, windowSeconds: 60 },
  },
  'businesses.profiles.search': { price: 'businesses.profiles.search' },
  'businesses.registrationStatus.inquire': { price: 'businesses.registrationStatus.inquire' },
  'businesses.registrationStatus.bulkInquire': {
    price: 'businesses.registrationStatus.inquire',
  },
  // Reading a certificate takes a second or more of CPU (OCR): 60 per minute per key.
  'businesses.certificates.verify': {
    price: 'businesses.certificates.verify',
    rateLimit: { limit: 60, windowSeconds: 60 },
  },

  'webhooks.endpoints.create': {},
  'webhooks.endpoints.list': {},
  'webhooks.endpoints.retrieve': {},
  'webhooks.endpoints.update': {},
  'webhooks.endpoints.delete': {},
  'webhooks.endpoints.rotateSecret': {},
  'webhooks.endpoints.test': {},
  'webhooks.events.list': {},
  'webhooks.events.retrieve': {},
  'webhooks.deliveries.list': {},
  'webhooks.deliveries.resend': {},

  'issuers.create': {},
  'issuers.list': {},
  'issuers.get': {},
  'issuers.update': {},
  'issuers.deactivate': {},
  'issuers.settings.get': {},
  'issuers.settings.save': {},
  'issuers.certificates.url': {},
  'issuers.certificates.register': {},
  'issuers.certificates.get': {},
  'issuers.certificates.latestHistory': {},
  'issuers.certificates.deregister': {},

  'taxInvoices.issue': { price: 'taxInvoices.issue' },
  // Validations run everything their issuance runs short of the effect, and are free.
  'taxInvoices.validate': {},
  'taxInvoices.issueDueDate': {},
  'taxInvoices.status': {},
  'taxInvoices.get': {},
  'taxInvoices.list': {},
  'taxInvoices.pdf': {},
  'taxInvoices.xml': {},
  'taxInvoices.attachments.add': {},
  'taxInvoices.attachments.list': {},
  'taxInvoices.attachments.get': {},
  'taxInvoices.attachments.delete': {},
  'taxInvoices.cancel': {},
  // Free itself: each document a bulk accepts is charged the taxInvoices.issue price, as alone.
  'taxInvoices.bulkIssue': {},
  'taxInvoices.bulks.get': {},
  'taxInvoices.bulks.list': {},
  'taxInvoices.resendEmail': {},
  'taxInvoices.amend.termination': { price: 'taxInvoices.issue' },
  'taxInvoices.amend.changeSupplyCost': { price: 'taxInvoices.issue' },
  'taxInvoices.amend.doubleIssuance': { price: 'taxInvoices.issue' },
  'taxInvoices.amend.entryCorrection': { price: 'taxInvoices.issue' },
  'taxInvoices.amend.returnedGoods': { price: 'taxInvoices.issue' },
  'taxInvoices.amend.localLetterOfCredit': { price: 'taxInvoices.issue' },
  // Each amendment's validation, free like every validation.
  'taxInvoices.amend.termination.validate': {},
  'taxInvoices.amend.changeSupplyCost.validate': {},
  'taxInvoices.amend.doubleIssuance.validate': {},
  'taxInvoices.amend.entryCorrection.validate': {},
  'taxInvoices.amend.returnedGoods.validate': {},
  'taxInvoices.amend.localLetterOfCredit.validate': {},
  'taxInvoices.issueRequest': { price: 'taxInvoices.issue' },
  'taxInvoices.issueRequest.validate': {},
  'taxInvoices.issueRequest.grant': {},
  'taxInvoices.issueRequest.approve': {},
  'taxInvoices.issueRequest.refuse': {},
  'taxInvoices.issueRequest.cancel': {},

  // Connections to outside systems are free on every plan; what uses them may need more.
  'connections.list': {},
  'connections.url': {},
  'connections.delete': {},

  // Revenue and expense books need a Standard plan or higher.
  'revenueExpenses.taxInvoices.list': { minimumPlan: 'STANDARD' },
  'revenueExpenses.collect': { minimumPlan: 'STANDARD' },
  'revenueExpenses.collections.get': { minimumPlan: 'STANDARD' },
  // Bank accounts and transactions need a Standard plan or higher; free (docs/points.md).
  'bankAccounts.list': { minimumPlan: 'STANDARD' },
  'bankAccounts.transactions.list': { minimumPlan: 'STANDARD' },
  'bankAccounts.sync': { minimumPlan: 'STANDARD' },
  'bankAccounts.syncs.get': { minimumPlan: 'STANDARD' },
  'cashReceipts.issue': { price: 'cashReceipts.issue' },
  'cashReceipts.validate': {},
  'cashReceipts.cancel': { price: 'cashReceipts.cancel' },
  'cashReceipts.cancel.validate': {},
  'cashReceipts.status': {},
  'cashReceipts.get': {},
  'cashReceipts.list': {},
  // Free itself: each receipt a bulk accepts is charged the cashReceipts.issue price, as alone.
  'cashReceipts.bulkIssue': {},
  'cashReceipts.bulks.get': {},
  'cashReceipts.bulks.list': {},
  'cashReceipts.pdf': {},

  // The counterparty book is free; checking a counterparty's status is a registration status
  // lookup and is charged as one (docs/counterparties.md).
  'counterparties.create': {},
  'counterparties.list': {},
  'counterparties.get': {},
  'counterparties.update': {},
  'counterparties.delete': {},
  'counterparties.refreshStatus': { price: 'businesses.registrationStatus.inquire' },
  'counterparties.imports.create': {},
  'counterparties.imports.get': {},
  'counterparties.imports.commit': {},
  // Drafts (docs/drafts.md): saving is free; issuing one is charged its issuance's price.
  'taxInvoices.drafts.create': {},
  'taxInvoices.drafts.list': {},
  'taxInvoices.drafts.get': {},
  'taxInvoices.drafts.update': {},
  'taxInvoices.drafts.delete': {},
  'taxInvoices.drafts.issue': { price: 'taxInvoices.issue' },
  'cashReceipts.drafts.create': {},
  'cashReceipts.drafts.list': {},
  'cashReceipts.drafts.get': {},
  'cashReceipts.drafts.update': {},
  'cashReceipts.drafts.delete': {},
  'cashReceipts.drafts.issue': { price: 'cashReceipts.issue' },

  'account.business.get': {},
  'account.business.save': {},
  // Charged from the row of the document's type: documents.taxAuthority.issue,
  // documents.registry.viewCopy or documents.registry.submissionCopy (docs/documents.md).
  'documents.issue': { priceRows: ['documents.taxAuthority.issue',
    'documents.registry.viewCopy', 'documents.registry.submissionCopy'] },
  'documents.validate': {},
  'documents.get': {},
  'documents.list': {},
  'documents.pdf': {},
} as const satisfies Record<string, OperationRow>;

export type Operation = keyof typeof OPERATIONS;

export function isOperation(name: string): name is Operation {
  // Own keys only: `in` would also accept inherited names such as "toString".
  return Object.hasOwn(OPERATIONS, name);
}

export function isPriceRow(name: string): name is PriceRow {
  return Object.hasOwn(DEFAULT_PRICES, name);
}

// Whether calling the operation can spend points.
export function isChargedOperation(operation: Operation): boolean {
  const row: OperationRow = OPERATIONS[operation];
  return row.price !== undefined || (row.priceRows?.length ?? 0) > 0;
}

// The lowest plan an operation needs, or null when every plan may call it.
export function minimumPlanOf(operation: Operation): Plan | null {
  const row: OperationRow = OPERATIONS[operation];
  return row.minimumPlan ?? null;
}
