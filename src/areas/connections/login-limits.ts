import type { Logger } from 'pino';
import type { RateLimitPolicy } from '../../platform/operations.ts';
import type { AttemptCounter } from '../../platform/ratelimit/limiter.ts';
import type { Scope } from '../../platform/scope.ts';

// Failed logins on the hosted connection page (docs/connections.md § Failed logins). A link
// takes the credentials of an outside system and tries them at once, so without a bound anyone
// with an API key could test stolen portal or bank credentials through etax. Three bounds:
//
//   - a link is spent after LINK_FAILED_LOGINS_MAX failed logins (counted on its row, with the
//     row locked during each login, so exactly);
//   - an account and environment may fail ACCOUNT_POLICY.limit logins per window, whatever the
//     number of links it makes (links cost nothing, so the bound is on the account);
//   - a client address may fail ADDRESS_POLICY.limit logins per window, across accounts.
//
// The account's and the address's are counters of the rate limiter (Redis with REDIS_URL, so
// they hold across processes). Every login counts up front, before it is tried, so concurrent
// submissions cannot slip past the bound; one that works is given back, so only failures (and
// logins the outside system could not answer) use the allowance.

export const LINK_FAILED_LOGINS_MAX = 5;
const ACCOUNT_POLICY: RateLimitPolicy = { limit: 20, windowSeconds: 3_600 };
const ADDRESS_POLICY: RateLimitPolicy = { limit: 10, windowSeconds: 3_600 };
const ACCOUNT_COUNTER = 'connections.page.account';
const ADDRESS_COUNTER = 'connections.page.address';

export class TooManyFailedLogins extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('Too many failed logins.');
  }
}

// Who tries a login: the account and environment of the link, the link (the first characters
// of its stored token hash, which name it in logs without revealing the token) and the client's
// address.
export type LoginAttempt = { scope: Scope; linkId: string; address: string };

export function createLoginLimits(deps: { attempts: AttemptCounter; log: Logger }) {
  const accountKey = ({ scope }: LoginAttempt) => `${scope.accountId}:${scope.environment}`;

  // Counts the login against the account and the address; throws TooManyFailedLogins when either
  // is over its bound.
  async function begin(attempt: LoginAttempt) {
    const [account, address] = await Promise.all([
      deps.attempts.attempt(ACCOUNT_COUNTER, ACCOUNT_POLICY, accountKey(attempt)),
      deps.attempts.attempt(ADDRESS_COUNTER, ADDRESS_POLICY, attempt.address)]);
    if (account === null && address === null) return;
    deps.log.error({ accountId: attempt.scope.accountId, environment: attempt.scope.environment,
      linkId: attempt.linkId, clientAddress: attempt.address,
      limitedBy: account !== null ? 'account' : 'address' },
    'connection page logins refused: too many failed logins');
    throw new TooManyFailedLogins(Math.max(account ?? 0, address ?? 0));
  }

  // A login that worked does not count.
  async function succeeded(attempt: LoginAttempt) {
    await Promise.all([
      deps.attempts.giveBack(ACCOUNT_COUNTER, ACCOUNT_POLICY, accountKey(attempt)),
      deps.attempts.giveBack(ADDRESS_COUNTER, ADDRESS_POLICY, attempt.address)]);
  }

  // One line per failed login, never with what was typed; an error line when it spends the link.
  function failed(attempt: LoginAttempt, failure: { code: string; failedLogins: number }) {
    const fields = { accountId: attempt.scope.accountId, environment: attempt.scope.environment,
      linkId: attempt.linkId, clientAddress: attempt.address, code: failure.code,
      failedLogins: failure.failedLogins };
    deps.log.warn(fields, 'connection page login failed');
    if (failure.failedLogins >= LINK_FAILED_LOGINS_MAX) {
      deps.log.error(fields, 'connection link spent by failed logins');
    }
  }

  return { begin, succeeded, failed };
}

export type LoginLimits = ReturnType<typeof createLoginLimits>;
