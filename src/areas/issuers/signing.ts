import { createPrivateKey, sign } from 'node:crypto';
import type { SealingKey } from '../../domain/sealed-box.ts';
import { validityAt, readCertificate } from '../../domain/joint-certificate.ts';
import type { Db } from '../../platform/db/connect.ts';
import { ApiError } from '../../platform/errors.ts';
import type { RegistrationScope } from './registration.ts';
import * as store from './store.ts';

// What tax-invoice work uses from this area (docs/issuers.md § Which issuance needs a
// certificate): the issuer behind a Supplier-Key header, and, for the issuance types that are
// signed by the issuer, the issuer with a way to sign under its registered joint certificate.

// STANDARD: the supplier issues (정발행). ON_BEHALF: a trustee issues for a supplier (위수탁);
// the issuer behind the Supplier-Key is the one that signs. REVERSE_REQUEST: the buyer asks the
// supplier to issue (역발행 요청); nothing is signed yet. REVERSE_APPROVAL: the supplier
// approves a reverse issuance request, which issues and so signs the invoice.
export const ISSUANCE_TYPES = ['STANDARD', 'ON_BEHALF', 'REVERSE_REQUEST',
  'REVERSE_APPROVAL'] as const;
export type IssuanceType = (typeof ISSUANCE_TYPES)[number];

export const CERTIFICATE_REQUIRED: Record<IssuanceType, boolean> = {
  STANDARD: true,
  ON_BEHALF: true,
  REVERSE_REQUEST: false,
  REVERSE_APPROVAL: true,
};

export type IssuerSigner = {
  // The signing certificate, DER, to embed in the signed document.
  certificate: Buffer;
  // RSA PKCS#1 v1.5 over SHA-256 of the data, the signature of the tax invoice XML standard.
  sign(data: Buffer): Buffer;
};

type SigningDeps = { db: Db; sealing: SealingKey; now: () => Date };

const SUPPLIER_KEY_LENGTH_MAX = 100;

export function createIssuerSigning(deps: SigningDeps) {
  // The active issuer a Supplier-Key names within the caller's scope. A key of another scope or
  // environment does not exist for the caller: 404 NOT_FOUND.
  async function resolveSupplierKey(scope: RegistrationScope, supplierKey: string) {
    const row = supplierKey.length > SUPPLIER_KEY_LENGTH_MAX ? null
      : await store.findIssuerBySupplierKey(deps.db, scope, supplierKey);
    if (row === null) throw new ApiError('NOT_FOUND', 'No issuer has this Supplier-Key.');
    if (row.deactivatedAt !== null) throw new ApiError('ISSUER_DEACTIVATED');
    return row;
  }

  // The issuer and, where the issuance type is signed, its signer. Throws 404 NOT_FOUND for an
  // unknown Supplier-Key, 409 ISSUER_DEACTIVATED, and 409 CERTIFICATE_NOT_REGISTERED when a
  // certificate is needed and none is registered or the registered one is no longer valid.
  async function requireIssuerCertificate(
    scope: RegistrationScope,
    supplierKey: string,
    issuanceType: IssuanceType,
  ): Promise<{ issuer: store.IssuerRow; signer: IssuerSigner | null }> {
    const issuer = await resolveSupplierKey(scope, supplierKey);
    if (!CERTIFICATE_REQUIRED[issuanceType]) return { issuer, signer: null };
    const row = await store.findCertificate(deps.db, issuer.id);
    if (row === null) throw new ApiError('CERTIFICATE_NOT_REGISTERED');
    const certificate = Buffer.from(row.certificateBase64, 'base64');
    const facts = readCertificate(certificate);
    if (facts === null || validityAt(facts, deps.now()) !== 'valid') {
      throw new ApiError('CERTIFICATE_NOT_REGISTERED',
        'The issuer\'s registered joint certificate is not valid now; register a new one.');
    }
    const privateKey = createPrivateKey({
      key: deps.sealing.open(row.sealedPrivateKey, issuer.id), format: 'der', type: 'pkcs8',
    });
    return {
      issuer,
      signer: { certificate, sign: (data) => sign('sha256', data, privateKey) },
    };
  }

  return { resolveSupplierKey, requireIssuerCertificate };
}
