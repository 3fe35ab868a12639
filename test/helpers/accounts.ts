import type { Environment } from '../../src/platform/accounts/keys.ts';
import type { Operation } from '../../src/platform/operations.ts';
import type { TestApp } from './app.ts';
import { expectSettledBalance } from './ledger-audit.ts';

// The accounts an API test makes for each test, on the app its file shares: funded in one
// environment, granted more later, and their settled balances checked.

export type Funded = { accountId: string; keys: Record<Environment, string> };

// `app` is read when a helper runs, so a file can call this before its beforeAll made the app.
export function accountHelpers(app: () => TestApp) {
  return {
    // A new account holding `points` in `environment` on top of its sign-up points.
    fundedAccount(points: number, environment: Environment = 'test'): Promise<Funded> {
      return app().createFundedAccount(points, environment);
    },
    async grantLive(account: Funded, points: number): Promise<void> {
      await app().platform.points.grant({ accountId: account.accountId, environment: 'live',
        points });
    },
    // Holds `points` of the test balance with a reservation, as a request still in flight would.
    reserveTest(account: Funded, operation: Operation, points: number) {
      return app().platform.points.reserve({ accountId: account.accountId, environment: 'test',
        operation, points });
    },
    balanceOf(account: Funded, environment: Environment = 'test') {
      return app().platform.points.getBalance({ accountId: account.accountId, environment });
    },
    // Nothing reserved, the balance as given, and the ledger agreeing with it.
    expectBalance(account: Funded, balance: number, environment: Environment = 'test') {
      return expectSettledBalance(app().platform, account.accountId, environment, balance);
    },
  };
}
