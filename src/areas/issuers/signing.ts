import { createPrivateKey } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { createBatcher } from '../../platform/batcher.ts';
import type { SealingKey } from '../../domain/sealed-box.ts';
import { validityAt } from '../../domain/certificate-validity.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { Scope } from '../../platform/scope.ts';
import { signOnSigningThread } from './signing-thread.ts';
import * as store from './store.ts';

// What tax-invoice work uses from this area (docs/issuers.md § Which issuance needs a
// certificate): the issuer behind a Supplier-Key header, and, for the issuance types that are
// signed by the issuer, the issuer with a way to sign under its registered joint certificate.

// STANDARD: the supplier issues (정발행). REVERSE_REQUEST: the buyer asks the supplier to issue
// (역발행 요청); nothing is signed yet. REVERSE_APPROVAL: the supplier approves a reverse
// issuance request, which issues and so signs the invoice.
type IssuanceType = 'STANDARD' | 'REVERSE_REQUEST' | 'REVERSE_APPROVAL';

const CERTIFICATE_REQUIRED: Record<IssuanceType, boolean> = {
  STANDARD: true,
  REVERSE_REQUEST: false,
  REVERSE_APPROVAL: true,
};

export type IssuerSigner = {
  // The signing certificate, DER, to embed in the signed document.
  certificate: Buffer;
  // RSA PKCS#1 v1.5 over SHA-256 of the data, the signature of the tax invoice XML standard, made
  // on the thread pool.
  sign(data: Buffer): Promise<Buffer>;
  // The random value R of the key file, which the tax authority checks the certificate's VID
  // with; it goes beside the signed document in a transmission.
  randomNumber: Buffer;
};

// Why a registered certificate cannot sign now.
const NOT_VALID_NOW = 'The issuer\'s registered joint certificate is not valid now; register a ' +
  'new one.';
const IDENTITY_NOT_CHECKED = 'The issuer\'s registered joint certificate cannot be tied to its ' +
  'business registration number by its identity data (VID) and the random value (R) of its key ' +
  'file; register it again.';

type SigningDeps = { db: Db; sealing: SealingKey; now: () => Date };

const SUPPLIER_KEY_LENGTH_MAX = 100;

// Signers kept per registered certificate: enough for every active issuer of a busy process,
// each dropped after ten minutes unused so decrypted keys do not stay in memory for long.
const SIGNERS_CACHED_MAX = 1_000;
const SIGNER_IDLE_TTL_MS = 10 * 60_000;
const LOOKUP_BATCHES_IN_FLIGHT_MAX = 2;
const LOOKUPS_PER_BATCH_MAX = 100;

// The signer of one registered certificate: reading the certificate and opening its sealed key
// cost more than the rest of an issuance, so it is made once per registration and kept for a
// while (createIssuerSigning). A new registration has a new identifier, and a removed certificate
// is no longer found by the query below, so a kept signer is never used for a certificate not in
// force. The identity check of registration runs again here, so a certificate registered before
// etax checked the VID (or one whose key file has no R) signs nothing: 'unverified'.
async function makeSigner(deps: SigningDeps, issuer: store.IssuerRow,
  registrationIdentifier: string): Promise<IssuerSigner | 'unverified' | null> {
  const row = await store.findCertificate(deps.db, issuer.id);
  if (row === null || row.registrationIdentifier !== registrationIdentifier) return null;
  const certificate = Buffer.from(row.certificateBase64, 'base64');
  // The certificate and key-file parsers load with the first signer made, not at the start.
  const [{ checkIdentity, readCertificate }, { readRandomNumber }] = await Promise.all([
    import('../../domain/joint-certificate.ts'), import('../../domain/signing-key-file.ts')]);
  const facts = readCertificate(certificate);
  if (facts === null) return null;
  const pkcs8 = deps.sealing.open(row.sealedPrivateKey, issuer.id);
  const randomNumber = readRandomNumber(pkcs8);
  if (checkIdentity(facts, randomNumber, issuer.identificationNumber) !== 'match') {
    return 'unverified';
  }
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  return { certificate, randomNumber: randomNumber!,
    sign: signOnSigningThread(privateKey) };
}

export function createIssuerSigning(deps: SigningDeps) {
  const signers = new LRUCache<string, IssuerSigner>({ max: SIGNERS_CACHED_MAX,
    ttl: SIGNER_IDLE_TTL_MS, updateAgeOnGet: true });
  // Issuance looks its issuer up on every request; concurrent lookups share one query.
  const findIssuer = createBatcher<Scope & { supplierKey: string },
    store.IssuerWithValidity | null>({
    inFlightMax: LOOKUP_BATCHES_IN_FLIGHT_MAX,
    itemsPerBatchMax: LOOKUPS_PER_BATCH_MAX,
    run: (lookups) => store.findIssuersAndCertificateValidity(deps.db, lookups),
  });
  // The active issuer a Supplier-Key names within the caller's scope, with its certificate's
  // validity. A key of another scope or environment does not exist for the caller: 404
  // NOT_FOUND.
  async function findActiveIssuer(scope: Scope, supplierKey: string) {
    const found = supplierKey.length > SUPPLIER_KEY_LENGTH_MAX ? null
      : await findIssuer({ ...scope, supplierKey });
    if (found === null) throw new ApiError('NOT_FOUND', 'No issuer has this Supplier-Key.');
    if (found.issuer.deactivatedAt !== null) throw new ApiError('ISSUER_DEACTIVATED');
    return found;
  }

  async function resolveSupplierKey(scope: Scope, supplierKey: string) {
    return (await findActiveIssuer(scope, supplierKey)).issuer;
  }

  // Requests and documents that need a signer not yet made share its making (makeSigner): a
  // burst for one issuer (a bulk of its documents, the first requests after a start) would
  // otherwise read the certificate and open the key once for each of them, which cost more than
  // all of their signatures.
  const making = new Map<string, Promise<IssuerSigner | 'unverified' | null>>();
  function signerOf(issuer: store.IssuerRow, registrationIdentifier: string):
    Promise<IssuerSigner | 'unverified' | null> {
    const cacheKey = `${issuer.id}:${registrationIdentifier}`;
    const cached = signers.get(cacheKey);
    if (cached !== undefined) return Promise.resolve(cached);
    let made = making.get(cacheKey);
    if (made === undefined) {
      made = makeSigner(deps, issuer, registrationIdentifier).then((signer) => {
        if (typeof signer === 'object' && signer !== null) signers.set(cacheKey, signer);
        return signer;
      }).finally(() => making.delete(cacheKey));
      making.set(cacheKey, made);
    }
    return made;
  }

  // The issuer and, where the issuance type is signed, its signer. Throws 404 NOT_FOUND for an
  // unknown Supplier-Key, 409 ISSUER_DEACTIVATED, and 409 CERTIFICATE_NOT_REGISTERED when a
  // certificate is needed and none is registered, the registered one is no longer valid, or it
  // fails the identity check.
  async function requireIssuerCertificate(
    scope: Scope,
    supplierKey: string,
    issuanceType: IssuanceType,
  ): Promise<{ issuer: store.IssuerRow; signer: IssuerSigner | null }> {
    const { issuer, certificate } = await findActiveIssuer(scope, supplierKey);
    if (!CERTIFICATE_REQUIRED[issuanceType]) return { issuer, signer: null };
    if (certificate === null) throw new ApiError('CERTIFICATE_NOT_REGISTERED');
    const signer = validityAt(certificate, deps.now()) === 'valid'
      ? await signerOf(issuer, certificate.registrationIdentifier) : null;
    if (signer === null) throw new ApiError('CERTIFICATE_NOT_REGISTERED', NOT_VALID_NOW);
    if (signer === 'unverified') {
      throw new ApiError('CERTIFICATE_NOT_REGISTERED', IDENTITY_NOT_CHECKED);
    }
    return { issuer, signer };
  }

  // The random value R of the certificate that signed a document, for its transmission: the R of
  // the issuer's registered certificate when that is still the signing certificate (a
  // deactivated issuer's documents still go out), else null: the signing certificate was replaced
  // or removed since, and its key file with it.
  async function signingRandomNumber(scope: Scope, supplierKey: string, certificate: Buffer):
    Promise<Buffer | null> {
    const found = supplierKey.length > SUPPLIER_KEY_LENGTH_MAX ? null
      : await findIssuer({ ...scope, supplierKey });
    if (found === null || found.certificate === null) return null;
    const signer = await signerOf(found.issuer, found.certificate.registrationIdentifier);
    if (signer === null || signer === 'unverified') return null;
    return signer.certificate.equals(certificate) ? signer.randomNumber : null;
  }

  return { resolveSupplierKey, requireIssuerCertificate, signingRandomNumber };
}
