import type { DashboardPage } from '../context.ts';
import { auditPage } from './audit.tsx';
import { bankTransactionsPage } from './bank-transactions.tsx';
import { booksPage } from './books.tsx';
import { bulksPage } from './bulks.tsx';
import { businessPage } from './business.tsx';
import { cashReceiptsPage } from './cash-receipts.tsx';
import { documentsPage } from './documents.tsx';
import { draftsPageModule } from './drafts.tsx';
import { homePage } from './home.tsx';
import { keysPage } from './keys.tsx';
import { operatorPage } from './operator.tsx';
import { connectionsPage } from './records/connections.tsx';
import { counterpartiesPage } from './records/counterparties.tsx';
import { issuersPage } from './records/issuers.tsx';
import { lookupsPage } from './records/lookups.tsx';
import { planPage } from './plan.tsx';
import { pointsPage } from './points.tsx';
import { sessionControls } from './session.tsx';
import { taxInvoicesPage } from './tax-invoices/index.tsx';
import { invoiceUploadPage } from './tax-invoices/upload.tsx';
import { settingsPage } from './settings.tsx';
import { teamPageModule } from './team.tsx';
import { twoFactorPage } from './two-factor.tsx';
import { webhooksPage } from './webhooks.tsx';

// Every page of the dashboard, one module each, in the order of the navigation within each of
// its sections (docs/dashboard.md § Adding a page). A new page is a module under pages/ and a
// line here; the router, the navigation and the role checks take it from this list.
export const PAGES: readonly DashboardPage[] = [
  homePage,
  taxInvoicesPage,
  invoiceUploadPage,
  bulksPage,
  draftsPageModule,
  cashReceiptsPage,
  documentsPage,
  booksPage,
  bankTransactionsPage,
  connectionsPage,
  issuersPage,
  counterpartiesPage,
  lookupsPage,
  pointsPage,
  planPage,
  teamPageModule,
  auditPage,
  businessPage,
  keysPage,
  webhooksPage,
  settingsPage,
  twoFactorPage,
  sessionControls,
  operatorPage,
];
