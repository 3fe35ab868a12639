import type { DashboardPage } from '../context.ts';
import { auditPage } from './audit.tsx';
import { businessPage } from './business.tsx';
import { homePage } from './home.tsx';
import { keysPage } from './keys.tsx';
import { operatorPage } from './operator.tsx';
import { planPage } from './plan.tsx';
import { pointsPage } from './points.tsx';
import { sessionControls } from './session.tsx';
import { settingsPage } from './settings.tsx';
import { teamPageModule } from './team.tsx';
import { twoFactorPage } from './two-factor.tsx';
import { webhooksPage } from './webhooks.tsx';

// Every page of the dashboard, one module each, in the order of the navigation within each of
// its sections (docs/dashboard.md § Adding a page). A new page is a module under pages/ and a
// line here; the router, the navigation and the role checks take it from this list.
export const PAGES: readonly DashboardPage[] = [
  homePage,
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
