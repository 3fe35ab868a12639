import {
  allowsSigning,
  checkIdentity,
  keyMatchesCertificate,
  readCertificate,
  readPrivateKey,
  validityAt,
  type CertificateFacts,
} from '../../domain/joint-certificate.ts';
import { isIssuedBySandboxCa } from '../../domain/sandbox-ca.ts';
import {
  decryptSigningKeyFile,
  KEY_FILE_ITERATIONS_MAX,
} from '../../domain/signing-key-file.ts';
import type { Environment } from '../../platform/accounts/keys.ts';

// Checks an uploaded joint certificate against its issuer: the whole rule set of a
// registration attempt, pure, in the order documented in docs/issuers.md § Registration codes.
// The first failing check names the attempt's code.

export const REGISTRATION_CODES = {
  REGISTERED: 'The certificate was registered.',
  DEREGISTERED: 'The certificate was deregistered.',
  UNSUPPORTED_CERTIFICATE_FORMAT: 'signCert.der is not a DER X.509 certificate.',
  SANDBOX_CERTIFICATE: 'The certificate was issued by the etax Sandbox CA: it registers with ' +
    'a test key only. Register the business\'s own joint certificate with a live key.',
  UNSUPPORTED_KEY_FORMAT: 'signPri.key is not an encrypted private key in a supported format: ' +
    'SEED-CBC under PBKDF1-SHA1 (seedCBCWithSHA1 or seedCBC) or PBES2 with PBKDF2-HMAC-SHA1 and ' +
    `SEED-CBC, at most ${KEY_FILE_ITERATIONS_MAX.toLocaleString('en')} iterations.`,
  WRONG_PASSWORD: 'The password does not decrypt signPri.key.',
  KEY_MISMATCH: 'signPri.key does not belong to signCert.der.',
  CERTIFICATE_EXPIRED: 'The certificate has expired.',
  CERTIFICATE_NOT_YET_VALID: 'The certificate is not valid yet.',
  NOT_SIGNING_CERTIFICATE:
    'The certificate is not for signing (send signCert.der, not kmCert.der).',
  VID_MISSING: 'The certificate cannot be tied to the issuer\'s business: it carries no ' +
    'identity data (VID) in its subjectAltName, or signPri.key carries no random value (R) to ' +
    'check it with.',
  VID_MISMATCH: 'The certificate was not issued for the issuer\'s business registration ' +
    'number: its identity data (VID) does not match the number with the random value (R) in ' +
    'signPri.key.',
  // Recorded by earlier versions, which matched the number or name in the subject; the VID
  // check replaced it, and old history records keep the code.
  NOT_ISSUERS_CERTIFICATE: 'The certificate does not name the issuer\'s business.',
} as const;

export type RegistrationCode = keyof typeof REGISTRATION_CODES;
export type FailureCode = Exclude<RegistrationCode, 'REGISTERED' | 'DEREGISTERED'>;

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
