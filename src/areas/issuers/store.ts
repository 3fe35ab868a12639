import { and, asc, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../platform/db/connect.ts';
import {
  certificateRegistrationHistory,
  certificateRegistrationSettings,
  certificateRegistrationTokens,
  certificateUploads,
  issuerCertificates,
  issuers,
} from './tables.ts';
import type { Scope } from '../../platform/scope.ts';

// SQL of the issuers area. Every read of an issuer filters by the caller's account and
// environment; rows of another scope are simply not found.

export type IssuerRow = typeof issuers.$inferSelect;
export type IssuerCertificateRow = typeof issuerCertificates.$inferSelect;
type HistoryRow = typeof certificateRegistrationHistory.$inferSelect;
export type UploadRow = typeof certificateUploads.$inferSelect;
type TokenRow = typeof certificateRegistrationTokens.$inferSelect;

const inScope = (scope: Scope) =>
  and(eq(issuers.accountId, scope.accountId), eq(issuers.environment, scope.environment));

// PostgreSQL's code for a unique violation.
const UNIQUE_VIOLATION = '23505';

// Inserts the issuer; returns null when an active issuer of the same business and sub-place
// exists in the scope.
export async function insertIssuer(
  tx: Executor,
  row: typeof issuers.$inferInsert,
): Promise<IssuerRow | null> {
  try {
    const [inserted] = await tx.insert(issuers).values(row).returning();
    return inserted ?? null;
  } catch (error) {
    const cause = (error as { cause?: { code?: string }; code?: string });
    if ((cause.cause?.code ?? cause.code) === UNIQUE_VIOLATION) return null;
    throw error;
  }
}

export async function findActiveIssuerOfBusiness(
  tx: Executor,
  scope: Scope,
  business: { identificationNumber: string; taxRegistrationId: string | null },
): Promise<IssuerRow | null> {
  const [row] = await tx.select().from(issuers).where(and(
    inScope(scope),
    eq(issuers.identificationNumber, business.identificationNumber),
    sql`coalesce(${issuers.taxRegistrationId}, '') = ${business.taxRegistrationId ?? ''}`,
    isNull(issuers.deactivatedAt),
  )).limit(1);
  return row ?? null;
}

// Whether the scope has an active issuer of the business, whatever its sub-place.
export async function hasActiveIssuerOfNumber(tx: Executor, scope: Scope,
  identificationNumber: string): Promise<boolean> {
  const rows = await tx.select({ id: issuers.id }).from(issuers).where(and(inScope(scope),
    eq(issuers.identificationNumber, identificationNumber), isNull(issuers.deactivatedAt)))
    .limit(1);
  return rows.length === 1;
}

export async function findIssuer(
  tx: Executor,
  scope: Scope,
  issuerId: string,
  options: { forUpdate?: boolean } = {},
): Promise<IssuerRow | null> {
  const query = tx.select().from(issuers)
    .where(and(inScope(scope), eq(issuers.id, issuerId))).limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

type CertificateValidity = Pick<IssuerCertificateRow,
  'registrationIdentifier' | 'notBefore' | 'notAfter'>;

export type IssuerWithValidity = { issuer: IssuerRow; certificate: CertificateValidity | null };

// The issuers several Supplier-Keys name, each with its certificate's validity, in one query:
// what issuance checks on every request, without the certificate's bytes. A key of another
// scope than the one asked with is not found.
export async function findIssuersAndCertificateValidity(
  tx: Executor,
  lookups: ReadonlyArray<Scope & { supplierKey: string }>,
): Promise<Array<IssuerWithValidity | null>> {
  const rows = await tx.select({
    issuer: issuers,
    registrationIdentifier: issuerCertificates.registrationIdentifier,
    notBefore: issuerCertificates.notBefore,
    notAfter: issuerCertificates.notAfter,
  }).from(issuers)
    .leftJoin(issuerCertificates, eq(issuerCertificates.issuerId, issuers.id))
    .where(inArray(issuers.supplierKey, [...new Set(lookups.map((l) => l.supplierKey))]));
  const bySupplierKey = new Map(rows.map((row) => [row.issuer.supplierKey, row]));
  return lookups.map((lookup) => {
    const row = bySupplierKey.get(lookup.supplierKey);
    if (row === undefined || row.issuer.accountId !== lookup.accountId ||
      row.issuer.environment !== lookup.environment) return null;
    const { issuer, registrationIdentifier, notBefore, notAfter } = row;
    return { issuer, certificate: registrationIdentifier === null ? null
      : { registrationIdentifier, notBefore: notBefore!, notAfter: notAfter! } };
  });
}

export async function listIssuers(
  tx: Executor,
  scope: Scope,
  page: { afterSequence: number | null; limit: number },
): Promise<IssuerRow[]> {
  const after = page.afterSequence === null ? undefined : gt(issuers.sequence, page.afterSequence);
  return tx.select().from(issuers).where(and(inScope(scope), after))
    .orderBy(asc(issuers.sequence)).limit(page.limit);
}

export type IssuerChanges = Partial<Pick<IssuerRow, 'organizationName' | 'representativeName' |
  'contactName' | 'contactEmail' | 'contactPhone' | 'fiscalYearEndMonth' | 'deactivatedAt'>>;

export async function updateIssuer(
  tx: Executor,
  scope: Scope,
  issuerId: string,
  changes: IssuerChanges,
): Promise<IssuerRow | null> {
  const [row] = await tx.update(issuers).set({ ...changes, updatedAt: sql`now()` })
    .where(and(inScope(scope), eq(issuers.id, issuerId))).returning();
  return row ?? null;
}

export async function findCertificate(
  tx: Executor,
  issuerId: string,
): Promise<IssuerCertificateRow | null> {
  const [row] = await tx.select().from(issuerCertificates)
    .where(eq(issuerCertificates.issuerId, issuerId)).limit(1);
  return row ?? null;
}

// The certificates of several issuers at once, for a page of issuers.
export async function findCertificates(
  tx: Executor,
  issuerIds: string[],
): Promise<IssuerCertificateRow[]> {
  if (issuerIds.length === 0) return [];
  return tx.select().from(issuerCertificates)
    .where(sql`${issuerCertificates.issuerId} in ${issuerIds}`).limit(issuerIds.length);
}

export async function upsertCertificate(tx: Executor, row: IssuerCertificateRow): Promise<void> {
  const changes: Partial<IssuerCertificateRow> = { ...row };
  delete changes.issuerId;
  await tx.insert(issuerCertificates).values(row)
    .onConflictDoUpdate({ target: issuerCertificates.issuerId, set: changes });
}

export async function deleteCertificate(tx: Executor, issuerId: string): Promise<boolean> {
  const deleted = await tx.delete(issuerCertificates)
    .where(eq(issuerCertificates.issuerId, issuerId))
    .returning({ id: issuerCertificates.issuerId });
  return deleted.length > 0;
}

export async function insertUpload(tx: Executor, row: typeof certificateUploads.$inferInsert) {
  await tx.insert(certificateUploads).values(row);
}

export async function findUpload(tx: Executor, uploadId: string): Promise<UploadRow | null> {
  const [row] = await tx.select().from(certificateUploads)
    .where(eq(certificateUploads.id, uploadId)).limit(1);
  return row ?? null;
}

// Deletes the upload; false when another worker already took it.
export async function deleteUpload(tx: Executor, uploadId: string): Promise<boolean> {
  const deleted = await tx.delete(certificateUploads)
    .where(eq(certificateUploads.id, uploadId)).returning({ id: certificateUploads.id });
  return deleted.length > 0;
}

// Sealed keys and uploads, a page at a time in key order, for `etax reseal` (sealed-columns.ts).
export async function listSealedPrivateKeys(tx: Executor, after: string | null, limit: number) {
  return tx.select({ key: issuerCertificates.issuerId, box: issuerCertificates.sealedPrivateKey })
    .from(issuerCertificates)
    .where(after === null ? undefined : gt(issuerCertificates.issuerId, after))
    .orderBy(asc(issuerCertificates.issuerId)).limit(limit);
}

// Replaces a sealed key where the row still holds the box that was read: a certificate
// registered meanwhile keeps the key its job sealed.
export async function replaceSealedPrivateKey(
  tx: Executor,
  issuerId: string,
  box: string,
  resealed: string,
) {
  await tx.update(issuerCertificates).set({ sealedPrivateKey: resealed }).where(and(
    eq(issuerCertificates.issuerId, issuerId), eq(issuerCertificates.sealedPrivateKey, box)));
}

export async function listSealedUploads(tx: Executor, after: string | null, limit: number) {
  return tx.select({ key: certificateUploads.id, box: certificateUploads.sealedUpload })
    .from(certificateUploads)
    .where(after === null ? undefined : gt(certificateUploads.id, after))
    .orderBy(asc(certificateUploads.id)).limit(limit);
}

export async function replaceSealedUpload(
  tx: Executor,
  uploadId: string,
  box: string,
  resealed: string,
) {
  await tx.update(certificateUploads).set({ sealedUpload: resealed }).where(and(
    eq(certificateUploads.id, uploadId), eq(certificateUploads.sealedUpload, box)));
}

export async function insertHistory(tx: Executor, row: HistoryRow): Promise<void> {
  await tx.insert(certificateRegistrationHistory).values(row);
}

// The issuer's registration records of the scope, newest first.
export async function listHistory(
  tx: Executor,
  scope: Scope,
  issuerId: string,
  limit: number,
): Promise<HistoryRow[]> {
  return tx.select().from(certificateRegistrationHistory).where(and(
    eq(certificateRegistrationHistory.issuerId, issuerId),
    eq(certificateRegistrationHistory.accountId, scope.accountId),
    eq(certificateRegistrationHistory.environment, scope.environment),
  )).orderBy(
    desc(certificateRegistrationHistory.occurredAt),
    desc(certificateRegistrationHistory.identifier),
  ).limit(limit);
}

export async function findLatestHistory(
  tx: Executor,
  scope: Scope,
  issuerId: string,
): Promise<HistoryRow | null> {
  const [row] = await listHistory(tx, scope, issuerId, 1);
  return row ?? null;
}

export async function insertToken(
  tx: Executor,
  row: typeof certificateRegistrationTokens.$inferInsert,
): Promise<void> {
  await tx.insert(certificateRegistrationTokens).values(row);
}

export async function findToken(
  tx: Executor,
  tokenHash: string,
  options: { forUpdate?: boolean } = {},
): Promise<TokenRow | null> {
  const query = tx.select().from(certificateRegistrationTokens)
    .where(eq(certificateRegistrationTokens.tokenHash, tokenHash)).limit(1);
  const [row] = options.forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

// Marks the token used if it is unused and unexpired at `now`; false otherwise, so two
// concurrent submissions cannot both pass.
export async function useToken(tx: Executor, tokenHash: string, now: Date): Promise<boolean> {
  const used = await tx.update(certificateRegistrationTokens).set({ usedAt: now })
    .where(and(
      eq(certificateRegistrationTokens.tokenHash, tokenHash),
      isNull(certificateRegistrationTokens.usedAt),
      gt(certificateRegistrationTokens.expiresAt, now),
    )).returning({ hash: certificateRegistrationTokens.tokenHash });
  return used.length > 0;
}

export async function findRedirectUrl(tx: Executor, apiKeyId: string): Promise<string | null> {
  const [row] = await tx.select().from(certificateRegistrationSettings)
    .where(eq(certificateRegistrationSettings.apiKeyId, apiKeyId)).limit(1);
  return row?.redirectUrl ?? null;
}

export async function saveRedirectUrl(
  tx: Executor,
  apiKeyId: string,
  redirectUrl: string | null,
): Promise<void> {
  await tx.insert(certificateRegistrationSettings).values({ apiKeyId, redirectUrl })
    .onConflictDoUpdate({
      target: certificateRegistrationSettings.apiKeyId,
      set: { redirectUrl, updatedAt: sql`now()` },
    });
}
