import { newId } from '../../domain/ids.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { Db } from '../../platform/db/connect.ts';
import {
  hashPageToken, isPageToken, newPageToken, pageLinkUrl, PageLinkError,
} from '../../platform/page-links.ts';
import type { CertificateUpload } from './certificate-check.ts';
import type { Scope } from '../../platform/scope.ts';
import type { CertificateRegistration, RegistrationRecord } from './registration.ts';
import * as store from './store.ts';

// The hosted registration page (docs/issuers.md § Certificate registration): a link, valid five
// minutes, to a page served by etax where the business owner uploads signCert.der and
// signPri.key and types the password, so the platform that calls the API never touches them.
// The token is in the path; only its SHA-256 is stored.
//
// The page checks an upload while the owner waits, rather than staging the job a direct upload
// stages, so that it can say what happened: the check takes milliseconds, and the answer does
// not depend on a worker process being up. A failed attempt is recorded and leaves the link
// usable for another try; only a successful registration uses it up. After a success the browser
// goes to the redirect URL the calling key had configured when the link was made.

// The registration URL is valid for five minutes (docs/issuers.md).
const REGISTRATION_LINK_TTL_MS = 5 * 60 * 1000;
export const REGISTRATION_PAGE_PATH = '/certificate-registration';

type LinkDeps = {
  db: Db;
  registration: CertificateRegistration;
  publicBaseUrl: string;
  now: () => Date;
};

export type RegistrationPage = { organizationName: string; identificationNumber: string;
  environment: Environment; expiresAt: Date };

// What an upload on the page came to: the attempt's record, and for a registration the facts
// the owner recognises the certificate by.
export type PageAttempt = {
  record: RegistrationRecord;
  page: RegistrationPage;
  redirectUrl: string | null;
  certificate: { subject: string; issuerName: string; notAfter: Date } | null;
};

type TokenRow = NonNullable<Awaited<ReturnType<typeof store.findToken>>>;

const scopeOf = (row: TokenRow): Scope =>
  ({ accountId: row.accountId, environment: row.environment as Environment });

// The row of a token that can still be used at `now`, or the page that says why not.
function requireUsableAt(row: TokenRow | null, now: Date): TokenRow {
  if (row === null) {
    throw new PageLinkError(404, 'This registration link does not exist.');
  }
  if (row.usedAt !== null) {
    throw new PageLinkError(410, 'This registration link was already used.');
  }
  if (row.expiresAt.getTime() <= now.getTime()) {
    throw new PageLinkError(410, 'This registration link has expired.');
  }
  return row;
}

function requireActive(issuer: store.IssuerRow | null): store.IssuerRow {
  if (issuer === null || issuer.deactivatedAt !== null) {
    throw new PageLinkError(410, 'The issuer is no longer active.');
  }
  return issuer;
}

const pageOf = (issuer: store.IssuerRow, row: TokenRow): RegistrationPage => ({
  organizationName: issuer.organizationName,
  identificationNumber: issuer.identificationNumber,
  environment: scopeOf(row).environment,
  expiresAt: row.expiresAt,
});

export function createRegistrationLinks(deps: LinkDeps) {
  const { db } = deps;

  // `apiKeyId` is the key that asked, whose redirect URL the page goes to after a registration;
  // null for a link made in the dashboard, whose page ends on etax's own answer.
  async function createLink(scope: Scope, apiKeyId: string | null, issuerId: string) {
    const token = newPageToken();
    const expiresAt = new Date(deps.now().getTime() + REGISTRATION_LINK_TTL_MS);
    await db.transaction(async (tx) => {
      const redirectUrl = apiKeyId === null ? null : await store.findRedirectUrl(tx, apiKeyId);
      await store.insertToken(tx, { tokenHash: hashPageToken(token), issuerId, ...scope,
        redirectUrl, expiresAt });
    });
    return { url: pageLinkUrl(deps.publicBaseUrl, REGISTRATION_PAGE_PATH, token),
      expiresAt: expiresAt.toISOString() };
  }

  const requireUsable = (row: TokenRow | null) => requireUsableAt(row, deps.now());

  async function usableToken(token: string) {
    return requireUsable(isPageToken(token) ? await store.findToken(db, hashPageToken(token))
      : null);
  }

  // What the page shows: which business the certificate is for.
  async function openPage(token: string): Promise<RegistrationPage> {
    const row = await usableToken(token);
    return pageOf(requireActive(await store.findIssuer(db, scopeOf(row), row.issuerId)), row);
  }

  // Checks the upload and records the attempt. The token row is locked while the attempt is
  // recorded, so of two uploads at once on one link at most one registers, and an attempt that
  // arrives after the link was used is not recorded.
  async function submit(token: string, upload: CertificateUpload): Promise<PageAttempt> {
    const row = await usableToken(token);
    const scope = scopeOf(row);
    const owner = requireActive(await store.findIssuer(db, scope, row.issuerId));
    const occurredAt = deps.now();
    const { checkCertificateUpload } = await import('./certificate-check.ts');
    const result = checkCertificateUpload(upload, owner,
      { now: occurredAt, environment: scope.environment });
    const record = await db.transaction(async (tx) => {
      requireUsable(await store.findToken(tx, row.tokenHash, { forUpdate: true }));
      const issuer = requireActive(await store.findIssuer(tx, scope, row.issuerId,
        { forUpdate: true }));
      // The row is locked and unused, so a use that fails means the link just expired.
      if (result.code === 'REGISTERED' && !(await store.useToken(tx, row.tokenHash, deps.now()))) {
        throw new PageLinkError(410, 'This registration link has expired.');
      }
      return deps.registration.recordAttempt(tx, scope, { identifier:
        newId('certificateRegistration'), issuerId: issuer.id, signCert: upload.signCert,
        occurredAt, result });
    });
    const certificate = result.code === 'REGISTERED' ? { subject: result.facts.subject,
      issuerName: result.facts.issuerName, notAfter: result.facts.notAfter } : null;
    return { record, page: pageOf(owner, row), redirectUrl: row.redirectUrl, certificate };
  }

  async function getSettings(apiKeyId: string) {
    return { certificateRedirectUrl: await store.findRedirectUrl(db, apiKeyId) };
  }

  async function saveSettings(apiKeyId: string, certificateRedirectUrl: string | null) {
    await store.saveRedirectUrl(db, apiKeyId, certificateRedirectUrl);
    return { certificateRedirectUrl };
  }

  return { createLink, openPage, submit, getSettings, saveSettings };
}

export type RegistrationLinks = ReturnType<typeof createRegistrationLinks>;
