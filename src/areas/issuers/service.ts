import {
  businessRegistrationNumberDefect,
  isCorporationNumber,
  normalizeBusinessRegistrationNumber,
} from '../../domain/business-registration-number.ts';
import { newId } from '../../domain/ids.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import { sequenceCursors, type PageCursors } from '../../platform/cursor.ts';
import type { Db, Executor } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { StageJob } from '../../platform/jobs.ts';
import type { Logger } from 'pino';
import type { CertificateUpload } from './certificate-check.ts';
import {
  createCertificateRegistration,
  type CertificateRegistration,
  type RegistrationRecordedHook,
} from './registration.ts';
import { createRegistrationLinks, type RegistrationLinks } from './registration-links.ts';
import { createIssuerSigning } from './signing.ts';
import * as store from './store.ts';
import type { Scope } from '../../platform/scope.ts';

// Issuers: the businesses that issue tax invoices under an API key, and their joint
// certificates (docs/issuers.md). Everything is scoped to the calling key's account and
// environment; an issuer of another scope is 404 NOT_FOUND, never 403.

type IssuersDeps = {
  db: Db;
  stage: StageJob;
  sealing: SealingKey;
  publicBaseUrl: string;
  log: Logger;
  now: () => Date;
  onRegistrationRecorded?: RegistrationRecordedHook;
  cursors: PageCursors;
};

type IssuerInput = {
  identificationNumber: string;
  organizationName: string;
  representativeName: string;
  taxRegistrationId?: string | undefined;
  contactName?: string | null | undefined;
  contactEmail?: string | null | undefined;
  contactPhone?: string | null | undefined;
  fiscalYearEndMonth?: number | null | undefined;
};

type IssuerChanges = Partial<Pick<IssuerInput, 'organizationName' | 'representativeName' |
  'contactName' | 'contactEmail' | 'contactPhone' | 'fiscalYearEndMonth'>>;

function toIssuer(row: store.IssuerRow, certificate: store.IssuerCertificateRow | null) {
  return {
    issuerId: row.id,
    supplierKey: row.supplierKey,
    identificationNumber: row.identificationNumber,
    taxRegistrationId: row.taxRegistrationId,
    organizationName: row.organizationName,
    representativeName: row.representativeName,
    contactName: row.contactName,
    contactEmail: row.contactEmail,
    contactPhone: row.contactPhone,
    fiscalYearEndMonth: row.fiscalYearEndMonth,
    active: row.deactivatedAt === null,
    certificate: certificate === null ? null : {
      issuedAt: certificate.notBefore.toISOString(),
      expiresAt: certificate.notAfter.toISOString(),
    },
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}


function toCertificateFacts(row: store.IssuerCertificateRow) {
  return {
    subject: row.subject,
    issuerName: row.issuerName,
    serialNumber: row.serialNumber,
    notBefore: row.notBefore.toISOString(),
    notAfter: row.notAfter.toISOString(),
    keyUsages: row.keyUsages,
    policies: row.policies,
    registrationIdentifier: row.registrationIdentifier,
    registeredAt: row.registeredAt.toISOString(),
  };
}

function checkIdentificationNumber(input: string): string {
  const digits = normalizeBusinessRegistrationNumber(input);
  if (digits === null) {
    throw new ApiError('INVALID_REQUEST',
      'body.identificationNumber must have ten digits once hyphens are removed.');
  }
  const defect = businessRegistrationNumberDefect(digits);
  if (defect !== null) {
    throw new ApiError('INVALID_BUSINESS_REGISTRATION_NUMBER',
      `body.identificationNumber ${defect}.`);
  }
  return digits;
}

// Only a corporation's business year can end before December: an individual's is the calendar
// year (소득세법 §5), so a fiscal year of another end would move its late-issuance limits wrongly.
function checkFiscalYearEndMonth(identificationNumber: string, month: number | null | undefined) {
  if (month === undefined || month === null || month === 12) return;
  if (isCorporationNumber(identificationNumber)) return;
  throw new ApiError('INVALID_REQUEST', `body.fiscalYearEndMonth must be 12 or null: ` +
    `${identificationNumber} is not a corporation's number (digits 4–5 are not 81 to 88), ` +
    'and an individual\'s business year is the calendar year.');
}

const NO_SUCH_ISSUER = 'No issuer has this issuerId.';

async function requireIssuer(db: Db, scope: Scope, issuerId: string) {
  const row = await store.findIssuer(db, scope, issuerId);
  if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_ISSUER);
  return row;
}

async function requireActiveIssuer(db: Db, scope: Scope, issuerId: string) {
  const row = await requireIssuer(db, scope, issuerId);
  if (row.deactivatedAt !== null) throw new ApiError('ISSUER_DEACTIVATED');
  return row;
}

type ScopedIssuer = { scope: Scope; issuerId: string };

// Registration, reading, change and deactivation of issuers.
function createIssuerRecords(db: Db, now: () => Date, cursors: PageCursors) {
  const listCursors = sequenceCursors(cursors, 'issuers.list');
  async function createIssuer(input: { scope: Scope; issuer: IssuerInput }) {
    const { scope, issuer } = input;
    const identificationNumber = checkIdentificationNumber(issuer.identificationNumber);
    checkFiscalYearEndMonth(identificationNumber, issuer.fiscalYearEndMonth);
    const taxRegistrationId = issuer.taxRegistrationId ?? null;
    const row = await store.insertIssuer(db, {
      ...issuer, ...scope, identificationNumber, taxRegistrationId,
      id: newId('issuer'), supplierKey: newId('supplierKey'),
    });
    if (row === null) {
      const existing = await store.findActiveIssuerOfBusiness(db, scope,
        { identificationNumber, taxRegistrationId });
      throw new ApiError('ISSUER_ALREADY_REGISTERED', 'An active issuer with this business ' +
        `registration number and tax registration id exists: issuerId ${existing?.id}.`);
    }
    return toIssuer(row, null);
  }

  async function getIssuer(input: ScopedIssuer) {
    const row = await requireIssuer(db, input.scope, input.issuerId);
    return toIssuer(row, await store.findCertificate(db, row.id));
  }

  // The active issuer of a business at its sub-place (taxRegistrationId null: the head office),
  // with its certificate; null when the scope has none. One row, whatever the number of issuers.
  async function findActiveIssuer(input: { scope: Scope; identificationNumber: string;
    taxRegistrationId: string | null }) {
    const row = await store.findActiveIssuerOfBusiness(db, input.scope, input);
    return row === null ? null : toIssuer(row, await store.findCertificate(db, row.id));
  }

  type ListInput = { scope: Scope; limit: number; cursor?: string | undefined };
  async function listIssuers(input: ListInput) {
    const afterSequence = listCursors.decode(input.scope, input.cursor) ?? null;
    const rows = await store.listIssuers(db, input.scope,
      { afterSequence, limit: input.limit + 1 });
    const { page, nextCursor } = listCursors.pageOf(input.scope, rows, input.limit);
    const certificates = await store.findCertificates(db, page.map((row) => row.id));
    const byIssuer = new Map(certificates.map((row) => [row.issuerId, row]));
    return { issuers: page.map((row) => toIssuer(row, byIssuer.get(row.id) ?? null)), nextCursor };
  }

  async function updateIssuer(input: ScopedIssuer & { changes: IssuerChanges }) {
    const current = await requireActiveIssuer(db, input.scope, input.issuerId);
    checkFiscalYearEndMonth(current.identificationNumber, input.changes.fiscalYearEndMonth);
    const row = await store.updateIssuer(db, input.scope, input.issuerId, input.changes);
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_ISSUER);
    return toIssuer(row, await store.findCertificate(db, row.id));
  }

  // Deactivation keeps the issuer readable and its history; it can no longer register
  // certificates or issue. A second call answers the same deactivated issuer.
  async function deactivateIssuer(input: ScopedIssuer) {
    const existing = await requireIssuer(db, input.scope, input.issuerId);
    const row = existing.deactivatedAt !== null ? existing
      : await store.updateIssuer(db, input.scope, input.issuerId, { deactivatedAt: now() });
    if (row === null) throw new ApiError('NOT_FOUND', NO_SUCH_ISSUER);
    return toIssuer(row, await store.findCertificate(db, row.id));
  }

  // Whether the business is one the scope issues for: an active issuer of the scope has its
  // number. The sandbox lets a test key connect only such a business (docs/connections.md).
  // Reads through `executor`, so that a caller inside a transaction asks on its own connection.
  async function issuesFor(scope: Scope, identificationNumber: string,
    executor: Executor = db) {
    return store.hasActiveIssuerOfNumber(executor, scope, identificationNumber);
  }

  return { createIssuer, getIssuer, findActiveIssuer, listIssuers, updateIssuer,
    deactivateIssuer, issuesFor };
}

// The certificate routes: upload, facts, deregistration, history and hosted links.
function createCertificateOperations(
  db: Db,
  registration: CertificateRegistration,
  links: RegistrationLinks,
) {
  async function submitCertificate(input: ScopedIssuer & { upload: CertificateUpload }) {
    const identifier = await db.transaction(async (tx) => {
      const issuer = await store.findIssuer(tx, input.scope, input.issuerId, { forUpdate: true });
      if (issuer === null) throw new ApiError('NOT_FOUND', NO_SUCH_ISSUER);
      if (issuer.deactivatedAt !== null) throw new ApiError('ISSUER_DEACTIVATED');
      return registration.stageUpload(tx, input.scope, issuer.id, input.upload);
    });
    return { identifier, issuerId: input.issuerId };
  }

  async function getCertificate(input: ScopedIssuer) {
    await requireIssuer(db, input.scope, input.issuerId);
    const row = await store.findCertificate(db, input.issuerId);
    if (row === null) throw new ApiError('NOT_FOUND', 'The issuer has no registered certificate.');
    return toCertificateFacts(row);
  }

  async function deregisterCertificate(input: ScopedIssuer) {
    await requireIssuer(db, input.scope, input.issuerId);
    if (!(await registration.deregister(input.scope, input.issuerId))) {
      throw new ApiError('NOT_FOUND', 'The issuer has no registered certificate.');
    }
  }

  async function latestHistory(input: ScopedIssuer) {
    await requireIssuer(db, input.scope, input.issuerId);
    const row = await store.findLatestHistory(db, input.scope, input.issuerId);
    if (row === null) throw new ApiError('CERTIFICATE_HISTORY_NOT_FOUND');
    const { identifier, issuerId, code, message } = row;
    return { latestHistory: { identifier, issuerId, occurredAt: row.occurredAt.toISOString(),
      code, message } };
  }

  // Every registration attempt of the issuer, newest first: what the latest record is one of.
  async function listHistory(input: ScopedIssuer & { limit: number }) {
    await requireIssuer(db, input.scope, input.issuerId);
    const rows = await store.listHistory(db, input.scope, input.issuerId, input.limit);
    return rows.map(({ identifier, issuerId, code, message, occurredAt }) =>
      ({ identifier, issuerId, occurredAt: occurredAt.toISOString(), code, message }));
  }

  // The hosted page's one-time link; `apiKeyId` null when the dashboard asks (no key's
  // redirect URL applies).
  async function createRegistrationUrl(input: ScopedIssuer & { apiKeyId: string | null }) {
    await requireActiveIssuer(db, input.scope, input.issuerId);
    return links.createLink(input.scope, input.apiKeyId, input.issuerId);
  }

  return { submitCertificate, getCertificate, deregisterCertificate, latestHistory, listHistory,
    createRegistrationUrl };
}

export function createIssuersService(deps: IssuersDeps) {
  const { db } = deps;
  const { now } = deps;
  const registration = createCertificateRegistration({ ...deps, now });
  const links = createRegistrationLinks({ db, registration, publicBaseUrl: deps.publicBaseUrl,
    now });
  const signing = createIssuerSigning({ db, sealing: deps.sealing, now });
  return {
    ...createIssuerRecords(db, now, deps.cursors),
    ...createCertificateOperations(db, registration, links),
    getSettings: links.getSettings,
    saveSettings: links.saveSettings,
    openRegistrationPage: links.openPage,
    submitHostedCertificate: links.submit,
    resolveSupplierKey: signing.resolveSupplierKey,
    requireIssuerCertificate: signing.requireIssuerCertificate,
    signingRandomNumber: signing.signingRandomNumber,
    processUpload: registration.processUpload,
    jobDefinitions: () => [registration.jobDefinition],
  };
}

export type IssuersService = ReturnType<typeof createIssuersService>;
