import type { DashboardPage } from '../context.ts';
import { businessPage } from './business.tsx';
import { homePage } from './home.tsx';
import { keysPage } from './keys.tsx';
import { operatorPage } from './operator.tsx';
import { sessionControls } from './session.tsx';
import { settingsPage } from './settings.tsx';
import { webhooksPage } from './webhooks.tsx';

// Every page of the dashboard, one module each, in the order of the navigation within each of
// its sections (docs/dashboard.md § Adding a page). A new page is a module under pages/ and a
// line here; the router, the navigation and the role checks take it from this list.
export const PAGES: readonly DashboardPage[] = [
  homePage,
  businessPage,
  keysPage,
  webhooksPage,
  settingsPage,
  sessionControls,
  operatorPage,
];
