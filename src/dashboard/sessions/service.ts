import { createHash, randomBytes } from 'node:crypto';
import { newId } from '../../domain/ids.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { Locale } from '../i18n/index.ts';
import type { Role } from '../roles.ts';
import * as store from './store.ts';

// Server-side sessions (docs/dashboard.md § Sessions). The cookie carries 32 random bytes; the
// database keeps only their SHA-256, so a copy of the table signs nobody in. A session ends
// after 30 idle minutes or 12 hours, whichever comes first; a sign-in always makes a new one
// (so a token planted before the sign-in is worth nothing after it).

const SESSION_IDLE_SECONDS = 30 * 60;
export const SESSION_ABSOLUTE_SECONDS = 12 * 60 * 60;
const LIMITS = { idleSeconds: SESSION_IDLE_SECONDS, absoluteSeconds: SESSION_ABSOLUTE_SECONDS };
const TOKEN_BYTES = 32;
// last_seen_at is written at most this often per session: a page load is a read, not a write.
const TOUCH_INTERVAL_MS = 60_000;
// What is kept of a browser's User-Agent for the sessions list.
const USER_AGENT_LENGTH_MAX = 200;

export type SignedIn = {
  sessionId: string;
  // The account requires a second factor of every user (an Owner's setting).
  twoFactorRequired: boolean;
  // The cookie's value: the CSRF token is derived from it (src/dashboard/csrf.ts).
  token: string;
  environment: Environment;
  // The user's account as it is now (a plan change shows on the next page).
  account: { name: string; plan: string };
  // The account an operator looks at read-only (docs/dashboard.md § The operator's pages):
  // pages read it as its Viewer would and refuse every change. Null otherwise, and for a user
  // no longer flagged operator.
  viewing: { accountId: string; name: string; plan: string } | null;
  user: { userId: string; accountId: string; email: string; role: Role; operator: boolean;
    locale: Locale; twoFactor: boolean };
};

// A session whose password was right waits this long for its second factor.
const SECOND_FACTOR_WAIT_SECONDS = 5 * 60;
const PENDING_LIMITS = { idleSeconds: SECOND_FACTOR_WAIT_SECONDS,
  absoluteSeconds: SECOND_FACTOR_WAIT_SECONDS };

const hashSessionToken = (token: string) =>
  createHash('sha256').update(token).digest('hex');

// A cookie value that cannot be a session token is refused before any hashing or query.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function createSessionsService({ db, now }: { db: Db; now: () => Date }) {
  async function start(input: { userId: string; environment?: Environment; address: string;
    userAgent: string | undefined; secondFactorPending?: boolean }):
    Promise<{ token: string; sessionId: string }> {
    const token = randomBytes(TOKEN_BYTES).toString('base64url');
    const sessionId = newId('dashboardSession');
    // The user's sessions that ended without a sign-out go at their next sign-in.
    await store.deleteEndedSessions(db, input.userId, LIMITS);
    await store.insertSession(db, { id: sessionId, tokenHash: hashSessionToken(token),
      userId: input.userId, environment: input.environment ?? 'test', address: input.address,
      userAgent: input.userAgent?.slice(0, USER_AGENT_LENGTH_MAX) ?? null,
      secondFactorPending: input.secondFactorPending ?? false });
    return { token, sessionId };
  }

  async function resolve(token: string | undefined, pending = false): Promise<SignedIn | null> {
    if (token === undefined || !TOKEN_PATTERN.test(token)) return null;
    const row = await store.findLiveSession(db, hashSessionToken(token),
      pending ? PENDING_LIMITS : LIMITS, pending);
    if (row === null) return null;
    const { session, user } = row;
    if (!pending && now().getTime() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
      await store.touchSession(db, session.id);
    }
    const viewing = user.operator && row.viewed !== null
      ? { accountId: row.viewed.id, name: row.viewed.name, plan: row.viewed.plan } : null;
    return { sessionId: session.id, token, environment: session.environment as Environment,
      account: row.account, twoFactorRequired: row.twoFactorRequired, viewing,
      user: { userId: user.id, accountId: user.accountId, email: user.email,
        role: user.role as Role, operator: user.operator, locale: user.locale as Locale,
        twoFactor: user.totpSecret !== null } };
  }

  return {
    start,
    resolve,
    // The session that gave the right password and waits for the second factor.
    resolvePending: (token: string | undefined) => resolve(token, true),
    end: (token: string) => store.deleteByTokenHash(db, hashSessionToken(token)),
    endOne: (userId: string, sessionId: string) => store.deleteUserSession(db, userId, sessionId),
    // Every session of the user but `keepSessionId`: "sign out everywhere else", or all of them
    // after a password reset.
    endAll: (userId: string, keepSessionId?: string) =>
      store.deleteUserSessions(db, userId, keepSessionId),
    list: (userId: string) => store.listUserSessions(db, userId),
    setEnvironment: (sessionId: string, environment: Environment) =>
      store.updateEnvironment(db, sessionId, environment),
    // Starts (an account id) or ends (null) an operator's read-only look at an account.
    setViewing: (sessionId: string, accountId: string | null) =>
      store.updateViewing(db, sessionId, accountId),
  };
}

export type SessionsService = ReturnType<typeof createSessionsService>;
