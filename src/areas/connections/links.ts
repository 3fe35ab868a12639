import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import { isApiError } from '../../platform/errors.ts';
import {
  hashPageToken, isPageToken, newPageToken, pageLinkUrl, PageLinkError,
} from '../../platform/page-links.ts';
import type { Scope } from '../../platform/scope.ts';
import type { ConnectInput, ConnectionsService, ConnectOutcome } from './service.ts';
import { LINK_FAILED_LOGINS_MAX, type LoginLimits } from './login-limits.ts';
import * as store from './store.ts';

// The hosted connection page (docs/connections.md § Making a connection): a link, valid ten
// minutes, to a page served by etax where the business owner types the credentials of the tax
// portal or of a bank account, so the platform that calls the API (or the dashboard that embeds
// the page) never touches them. The token is in the path; only its SHA-256 is stored. The page
// names the account that will receive the connection. A failed login leaves the link usable for
// another try, up to the bounds of login-limits.ts; a connection uses it up.

const CONNECTION_LINK_TTL_MS = 10 * 60 * 1000;
export const CONNECTION_PAGE_PATH = '/connections';

export type ConnectionPage = { kind: store.ConnectionKind; environment: Environment;
  expiresAt: Date;
  // The name of the account the connection is made for.
  accountName: string };

type LinkRow = NonNullable<Awaited<ReturnType<typeof store.findLink>>>;

function requireUsableAt(row: LinkRow | null, now: Date): LinkRow {
  if (row === null) throw new PageLinkError(404, 'This connection link does not exist.');
  if (row.usedAt !== null) throw new PageLinkError(410, 'This connection link was already used.');
  if (row.failedLogins >= LINK_FAILED_LOGINS_MAX) {
    throw new PageLinkError(410, 'This connection link was spent by too many failed logins.');
  }
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw new PageLinkError(410, 'This connection link has expired.');
  }
  return row;
}

const scopeOf = (row: LinkRow): Scope =>
  ({ accountId: row.accountId, environment: row.environment as Environment });

// Names the link in log lines without revealing its token: the start of its stored hash.
const linkIdOf = (row: LinkRow) => row.tokenHash.slice(0, 16);

type LinksDeps = { db: Db; connections: ConnectionsService; publicBaseUrl: string;
  now: () => Date; limits: LoginLimits;
  // The name of an account, shown on the page.
  accountName(accountId: string): Promise<string> };

export function createConnectionLinks(deps: LinksDeps) {
  const { db } = deps;

  const pageOf = async (row: LinkRow): Promise<ConnectionPage> => ({
    kind: row.kind as store.ConnectionKind, environment: row.environment as Environment,
    expiresAt: row.expiresAt, accountName: await deps.accountName(row.accountId) });

  async function createLink(scope: Scope, kind: store.ConnectionKind) {
    const token = newPageToken();
    const expiresAt = new Date(deps.now().getTime() + CONNECTION_LINK_TTL_MS);
    await store.insertLink(db, { tokenHash: hashPageToken(token), ...scope, kind, expiresAt });
    return { url: pageLinkUrl(deps.publicBaseUrl, CONNECTION_PAGE_PATH, token),
      expiresAt: expiresAt.toISOString() };
  }

  async function usableLink(token: string) {
    const row = isPageToken(token) ? await store.findLink(db, hashPageToken(token)) : null;
    return requireUsableAt(row, deps.now());
  }

  async function openPage(token: string): Promise<ConnectionPage> {
    return pageOf(await usableLink(token));
  }

  // Logs in with what the owner typed; a connection uses the link up in the transaction that
  // stores it, with the link's row locked, so one link makes at most one connection and its
  // failed logins are counted one at a time. Each login first counts against the account's and
  // the client address's bounds (login-limits.ts).
  async function submit(token: string, input: ConnectInput, client: { address: string }):
    Promise<{ outcome: ConnectOutcome; page: ConnectionPage }> {
    const row = await usableLink(token);
    if (input.kind !== row.kind) {
      throw new PageLinkError(404, 'This connection link does not exist.');
    }
    const attempt = { scope: scopeOf(row), linkId: linkIdOf(row), address: client.address };
    await deps.limits.begin(attempt);
    let failedLogins = 0;
    const outcome = await db.transaction(async (tx) => {
      requireUsableAt(await store.findLink(tx, row.tokenHash, { forUpdate: true }), deps.now());
      const answer = await deps.connections.connect(scopeOf(row), input, tx);
      if (answer.kind === 'failed') failedLogins = await store.countFailedLogin(tx, row.tokenHash);
      if (answer.kind === 'connected' && !(await store.useLink(tx, row.tokenHash, deps.now()))) {
        throw new PageLinkError(410, 'This connection link has expired.');
      }
      return answer;
    }).catch(async (error: unknown) => {
      // Nothing was tried through a link that is no longer usable, nor for a connection refused
      // before its login (a 4xx of the service, such as a sandbox number the account does not
      // issue for): neither uses the allowance of failed logins.
      if (error instanceof PageLinkError || (isApiError(error) && error.status < 500)) {
        await deps.limits.succeeded(attempt);
      }
      throw error;
    });
    if (outcome.kind === 'connected') await deps.limits.succeeded(attempt);
    else deps.limits.failed(attempt, { code: outcome.code, failedLogins });
    return { outcome, page: await pageOf(row) };
  }

  return { createLink, openPage, submit };
}

export type ConnectionLinks = ReturnType<typeof createConnectionLinks>;
