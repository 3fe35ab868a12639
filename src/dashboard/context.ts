import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import type { BankService } from '../areas/bank/index.ts';
import type { BankTransactionsService } from '../areas/bank-transactions/index.ts';
import type {
  BusinessesService,
  RegistrationStatusService,
} from '../areas/businesses/index.ts';
import type {
  CashReceiptBulkService,
  CashReceiptsService,
} from '../areas/cash-receipts/index.ts';
import type { ConnectionLinks, ConnectionsService } from '../areas/connections/index.ts';
import type { CounterpartiesService } from '../areas/counterparties/index.ts';
import type { DocumentsService, OwnerBusinesses } from '../areas/documents/index.ts';
import type { ApprovalSettings, DraftService } from '../areas/drafts/index.ts';
import type { IssuersService } from '../areas/issuers/index.ts';
import type { LedgerPages } from '../areas/points/index.ts';
import type { RevenueExpensesService } from '../areas/revenue-expenses/index.ts';
import type {
  AttachmentService, InvoiceMailService, ReverseIssuanceService, TaxInvoiceBulkService,
  TaxInvoicesService,
  XmlService,
} from '../areas/tax-invoices/index.ts';
import type { WebhooksService } from '../areas/webhooks/index.ts';
import type { SealingKey } from '../domain/sealed-box.ts';
import type { KeyCache } from '../platform/auth.ts';
import type { PageCursors } from '../platform/cursor.ts';
import type { Platform } from '../platform/platform.ts';
import type { RateLimiter } from '../platform/ratelimit/limiter.ts';
import type { Scope } from '../platform/scope.ts';
import type { MessageKey, Translate, Locale } from './i18n/index.ts';
import type { ResetRequests } from './links/reset-requests.ts';
import type { LinksService } from './links/service.ts';
import type { Permission, Role } from './roles.ts';
import type { TwoFactorService } from './two-factor/service.ts';
import type { SessionsService, SignedIn } from './sessions/service.ts';
import type { ShownOnce } from './sessions/shown-once.ts';
import type { UsersService } from './users/service.ts';
import type { UsageCache } from './usage-cache.ts';

// What every dashboard page and action is given, and what it gives back
// (docs/dashboard.md § Adding a page).

// What the dashboard is built from: the platform's services, and what the server made for the
// API that the dashboard must share (the key cache, to drop a revoked key at once; the rate
// limiter, for sign-in attempts). Areas are reached only through their index.ts.
export type DashboardDeps = {
  platform: Platform;
  keys: Pick<KeyCache, 'forgetKeyId'>;
  rateLimiter: Pick<RateLimiter, 'attempt' | 'countItems' | 'countingIn' | 'policyFor'>;
  // The key that seals secrets at rest: the users' TOTP secrets too.
  sealing: SealingKey;
  // The API's page cursors, for the dashboard's own lists (the audit log).
  cursors: PageCursors;
  areas: DashboardAreas;
};

// The area services pages call, each typed by its area's index.ts.
export type DashboardAreas = {
  // Tax invoices: the same services as /v1/taxInvoices (issuance, lists, cancellation,
  // amendments, the issue deadline of a write date), reverse issuance, the recipient's mail and
  // the signed XML.
  taxInvoices: TaxInvoicesService;
  reverseIssuance: ReverseIssuanceService;
  invoiceMail: Pick<InvoiceMailService, 'resendEmail'>;
  taxInvoiceXml: XmlService;
  // Bulk issuance (uploads of many documents): the same services as /v1/taxInvoices:bulkIssue
  // and /v1/cashReceipts:bulkIssue, and their bulks.
  taxInvoiceBulks: TaxInvoiceBulkService;
  cashReceiptBulks: CashReceiptBulkService;
  taxInvoiceAttachments: AttachmentService;
  // A business profile by its number (charged, like GET /v1/businesses/{number}).
  businessProfiles: Pick<BusinessesService, 'retrieveProfile'>;
  // Endpoints, secrets, deliveries and test events: the same service as /v1/webhookEndpoints.
  webhooks: WebhooksService;
  // The owner business (the same service as PUT /v1/account/business and `etax
  // account-business set`) and its issuer's certificate, registered on the hosted page.
  owners: Pick<OwnerBusinesses, 'get' | 'save'>;
  issuers: Pick<IssuersService, 'getCertificate' | 'listHistory' | 'createRegistrationUrl' |
    'listIssuers' | 'getIssuer' | 'createIssuer' | 'updateIssuer'>;
  // The connections page: the same services as /v1/connections and the hosted connection page.
  connections: Pick<ConnectionsService, 'list' | 'disconnect'>;
  connectionLinks: Pick<ConnectionLinks, 'createLink'>;
  // The books and bank transactions pages, and what "collect now" and "sync now" start: the
  // same services as /v1/revenueExpenses and /v1/bankAccounts.
  revenueExpenses: RevenueExpensesService;
  bankTransactions: BankTransactionsService;
  // The cash receipts and documents pages: the same services as /v1/cashReceipts and
  // /v1/documents.
  cashReceipts: CashReceiptsService;
  documents: DocumentsService;
  // The counterparties page: the same service as /v1/counterparties.
  counterparties: CounterpartiesService;
  // The drafts page and the issue form's "save as draft": the same services as
  // /v1/taxInvoices/drafts and /v1/cashReceipts/drafts, and the account's approval setting.
  taxInvoiceDrafts: DraftService;
  cashReceiptDrafts: DraftService;
  draftApproval: ApprovalSettings;
  // The points page's ledger: the same pages as GET /v1/points/ledger.
  pointsLedger: LedgerPages;
  // The lookups page: the same charged services as the API's lookups (and businessProfiles,
  // above).
  registrationStatus: Pick<RegistrationStatusService, 'inquireStatuses'>;
  bankHolders: Pick<BankService, 'inquireHolders'>;
};

export type DashboardServices = DashboardDeps & {
  users: UsersService;
  sessions: SessionsService;
  // Invitations and password resets by mail.
  links: LinksService;
  // A new API key or webhook secret, kept with the session until the page that shows it.
  shownOnce: ShownOnce;
  // What "Forgot your password?" asks for, worked after the answer.
  resetRequests: ResetRequests;
  twoFactor: TwoFactorService;
  // Home's usage of the days already over, kept per account and environment.
  usageCache: UsageCache;
};

export type PageContext = {
  request: FastifyRequest;
  reply: FastifyReply;
  params: Record<string, string | undefined>;
  query: URLSearchParams;
  // The POSTed form; empty for a GET.
  form: URLSearchParams;
  // The files of a multipart form, in the order sent (mount.ts reads them).
  files: readonly import('./uploads.ts').UploadedFile[];
  session: SignedIn;
  // The account and environment the session acts for: every read and write is scoped by it.
  // While an operator looks at an account read-only, the account looked at.
  scope: Scope;
  // The role pages are shown and checked for: the user's, or Viewer while an operator looks at
  // an account.
  role: Role;
  account: { name: string; plan: string };
  locale: Locale;
  t: Translate;
  // The synchronizer token every form of the page posts back (src/dashboard/http.ts).
  csrf: string;
  services: DashboardServices;
  // The injected clock (the platform's Outside.now): today's date in a form, a certificate's
  // days left.
  now(): Date;
  // Whether the session's role has a permission (roles.ts), for what a page shows.
  may(permission: Permission): boolean;
  // Records what was done in the audit log, as this session's user, from its address.
  audit(action: import('./audit/store.ts').AuditAction, target?: string | null,
    environment?: string | null): Promise<void>;
};

export type Outcome =
  // A whole page in the layout.
  | { kind: 'page'; title: MessageKey; body: VNode; status?: number }
  // Part of a page, for an htmx request (HX-Request), without the layout.
  | { kind: 'fragment'; body: VNode }
  // After a POST: 303 to a path under /dashboard (post/redirect/get).
  | { kind: 'redirect'; to: string }
  | { kind: 'download'; filename: string; contentType: string; body: string | Buffer };

export type DashboardRoute = {
  method: 'GET' | 'POST';
  // For users flagged operator only (`etax user create --operator`), whatever their role.
  operator?: true;
  // Under /dashboard, in find-my-way's syntax (`/keys/:keyId/revoke`).
  path: string;
  // What the session's role must be allowed (roles.ts); checked before `handle` runs.
  permission: Permission;
  // Open to a user who must still turn a second factor on (the account requires it): their
  // settings and the header's controls. Every other route sends them to Settings.
  beforeSecondFactor?: true;
  // A POST that acts on the session or its own user only (sign out, the switches, the end of
  // an operator's look at an account): allowed while an operator looks at an account
  // read-only, when every other POST is refused.
  whileViewing?: true;
  handle(context: PageContext): Promise<Outcome>;
};

// One page of the dashboard: its place in the navigation and its routes. pages/index.ts lists
// them.
export type DashboardPage = {
  nav?: { label: MessageKey; path: string; section: NavSection; permission: Permission;
    operator?: true };
  routes: DashboardRoute[];
};

// Issuing holds tax invoices, cash receipts and documents; records holds connections, books, bank
// transactions and lookups. The navigation shows sections in the order pages/index.ts lists pages.
export type NavSection = 'issuing' | 'records' | 'account' | 'developers' | 'you' | 'operator';
