import { KEY_FILE_ITERATIONS_MAX } from '../../domain/key-file-limits.ts';

// The outcome of each certificate registration attempt and what it tells the owner, as the API,
// the events and the hosted page report them (certificate-check.ts decides which applies).

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
