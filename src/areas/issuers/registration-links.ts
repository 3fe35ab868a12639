import type { Db } from '../../platform/db/connect.ts';
import {
  hashPageToken,
  isPageToken,
  newPageToken,
  PageLinkError,
} from '../../platform/page-links.ts';
import type { CertificateUpload } from './certificate-check.ts';
import type { Scope } from '../../platform/scope.ts';
import type { CertificateRegistration } from './registration.ts';
import * as store from './store.ts';

// The hosted registration page (docs/issuers.md § Hosted registration): a one-time link, valid
// five minutes, to a page served by etax where the business owner uploads signCert.der and
// signPri.key and types the password, so the platform that calls the API never touches them.
// The token is in the path; only its SHA-256 is stored. After the upload is accepted the browser
// goes to the redirect URL the calling key had configured when the link was made.

// Spec prior art: the registration URL is valid for five minutes.
const REGISTRATION_LINK_TTL_MS = 5 * 60 * 1000;
export const REGISTRATION_PAGE_PATH = '/certificate-registration';

type LinkDeps = {
  db: Db;
  registration: CertificateRegistration;
  publicBaseUrl: string;
  now: () => Date;
};

type RegistrationPage = { organizationName: string; identificationNumber: string;
  expiresAt: Date };

export function createRegistrationLinks(deps: LinkDeps) {
  const { db } = deps;

  async function createLink(scope: Scope, apiKeyId: string, issuerId: string) {
    const token = newPageToken();
    const expiresAt = new Date(deps.now().getTime() + REGISTRATION_LINK_TTL_MS);
    await db.transaction(async (tx) => {
      const redirectUrl = await store.findRedirectUrl(tx, apiKeyId);
      await store.insertToken(tx, { tokenHash: hashPageToken(token), issuerId, ...scope,
        redirectUrl, expiresAt });
    });
    const base = deps.publicBaseUrl.replace(/\/+$/, '');
    return { url: `${base}${REGISTRATION_PAGE_PATH}/${token}`, expiresAt: expiresAt.toISOString() };
  }

  async function usableToken(token: string) {
    const row = isPageToken(token) ? await store.findToken(db, hashPageToken(token)) : null;
    if (row === null) {
      throw new PageLinkError(404, 'This registration link does not exist.');
    }
    if (row.usedAt !== null) {
      throw new PageLinkError(410, 'This registration link was already used.');
    }
    if (row.expiresAt.getTime() <= deps.now().getTime()) {
      throw new PageLinkError(410, 'This registration link has expired.');
    }
    return row;
  }

  // What the page shows: which business the certificate is for.
  async function openPage(token: string): Promise<RegistrationPage> {
    const row = await usableToken(token);
    const scope = { accountId: row.accountId, environment: row.environment as 'test' | 'live' };
    const issuer = await store.findIssuer(db, scope, row.issuerId);
    if (issuer === null || issuer.deactivatedAt !== null) {
      throw new PageLinkError(410, 'The issuer is no longer active.');
    }
    return { organizationName: issuer.organizationName,
      identificationNumber: issuer.identificationNumber, expiresAt: row.expiresAt };
  }

  // Uses the token and stages the upload in one transaction; returns where to send the browser.
  async function submit(token: string, upload: CertificateUpload) {
    const row = await usableToken(token);
    const scope = { accountId: row.accountId, environment: row.environment as 'test' | 'live' };
    return db.transaction(async (tx) => {
      if (!(await store.useToken(tx, row.tokenHash, deps.now()))) {
        throw new PageLinkError(410, 'This registration link was already used.');
      }
      const issuer = await store.findIssuer(tx, scope, row.issuerId, { forUpdate: true });
      if (issuer === null || issuer.deactivatedAt !== null) {
        throw new PageLinkError(410, 'The issuer is no longer active.');
      }
      const identifier = await deps.registration.stageUpload(tx, scope, issuer.id, upload);
      return { identifier, issuerId: issuer.id, redirectUrl: row.redirectUrl };
    });
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
