import { validityAt } from '../../domain/certificate-validity.ts';
import {
  allowsSigning,
  checkIdentity,
  keyMatchesCertificate,
  readCertificate,
  readPrivateKey,
  type CertificateFacts,
} from '../../domain/joint-certificate.ts';
import { isIssuedBySandboxCa } from '../../domain/sandbox-ca.ts';
import { decryptSigningKeyFile } from '../../domain/signing-key-file.ts';
import type { Environment } from '../../platform/accounts/keys.ts';
import type { FailureCode } from './registration-codes.ts';

// Checks an uploaded joint certificate against its issuer: the whole rule set of a
// registration attempt, pure, in the order documented in docs/issuers.md § Registration codes.
// The first failing check names the attempt's code. It loads the certificate and key-file
// parsers, so its users import it when an upload is checked, not when the server starts.

export type CertificateUpload = { signCert: Buffer; signPri: Buffer; password: string };
type CertificateOwner = { identificationNumber: string };
// When and for which environment's key the attempt is checked.
type CheckContext = { now: Date; environment: Environment };

export type CheckResult =
  | { code: 'REGISTERED'; facts: CertificateFacts; pkcs8: Buffer }
  | { code: FailureCode };

export function checkCertificateUpload(
  upload: CertificateUpload,
  owner: CertificateOwner,
  { now, environment }: CheckContext,
): CheckResult {
  const facts = readCertificate(upload.signCert);
  if (facts === null) return { code: 'UNSUPPORTED_CERTIFICATE_FORMAT' };
  // Before the password: a sandbox certificate never registers with a live key, so the owner
  // learns that first rather than fixing anything else.
  if (environment === 'live' && isIssuedBySandboxCa(upload.signCert)) {
    return { code: 'SANDBOX_CERTIFICATE' };
  }
  const decrypted = decryptSigningKeyFile(upload.signPri, upload.password);
  if (decrypted.kind === 'unsupportedFormat') return { code: 'UNSUPPORTED_KEY_FORMAT' };
  if (decrypted.kind === 'wrongPassword') return { code: 'WRONG_PASSWORD' };
  const privateKey = readPrivateKey(decrypted.pkcs8);
  if (privateKey === null) return { code: 'UNSUPPORTED_KEY_FORMAT' };
  if (!keyMatchesCertificate(privateKey, facts)) return { code: 'KEY_MISMATCH' };
  const validity = validityAt(facts, now);
  if (validity === 'expired') return { code: 'CERTIFICATE_EXPIRED' };
  if (validity === 'notYetValid') return { code: 'CERTIFICATE_NOT_YET_VALID' };
  if (!allowsSigning(facts)) return { code: 'NOT_SIGNING_CERTIFICATE' };
  const identity = checkIdentity(facts, decrypted.randomNumber, owner.identificationNumber);
  if (identity === 'missing') return { code: 'VID_MISSING' };
  if (identity === 'mismatch') return { code: 'VID_MISMATCH' };
  return { code: 'REGISTERED', facts, pkcs8: decrypted.pkcs8 };
}
