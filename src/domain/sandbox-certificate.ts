import 'reflect-metadata';
import { createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import {
  AuthorityKeyIdentifierExtension,
  Extension,
  type JsonName,
  KeyUsageFlags,
  KeyUsagesExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
} from '@peculiar/x509';
import {
  SANDBOX_CA_CERTIFICATE_PEM,
  SANDBOX_CA_NAME,
  SANDBOX_CA_PRIVATE_KEY_PEM,
} from './sandbox-ca.ts';
import { encryptSigningKeyFile, withRandomNumber } from './signing-key-file.ts';
import { identifyDataSubjectAltName } from './virtual-id.ts';

// A joint certificate for the sandbox: signCert.der and signPri.key as a Korean CA hands them
// to a business, issued by the etax Sandbox CA (sandbox-ca.ts) for one business registration
// number. The key file is SEED-CBC encrypted PBES2, the format of current certificates, and
// carries the random value R beside the key; the certificate carries the VID made from the number
// and R (virtual-id.ts). So a sandbox registration goes through the same decryption and the same
// identity check as a real one.

// Korean CAs issue RSA-2048 signing keys and sign with SHA-256.
const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};
// What CAs' software writes: an 8-byte salt and 2048 PBKDF2 iterations.
const KEY_FILE_SALT_BYTES = 8;
const KEY_FILE_ITERATIONS = 2048;
const SEED_IV_BYTES = 16;
// R is 160 bits in the key files CAs issue.
const RANDOM_NUMBER_BYTES = 20;
const SUBJECT_ALT_NAME_OID = '2.5.29.17';
// A joint certificate is valid a year. It starts an hour early so that a server whose clock is
// a little behind the machine that made it does not find it not yet valid.
const VALIDITY_DAYS = 365;
const CLOCK_SKEW_MS = 60 * 60 * 1000;
const DAY_MS = 86_400_000;

export type SandboxCertificateRequest = {
  // Ten digits, checksum already checked by the caller.
  businessRegistrationNumber: string;
  organizationName: string;
  password: string;
  now: Date;
  // The random value R; drawn at random unless given (tests that need a known one).
  randomNumber?: Buffer;
};

export type SandboxCertificate = {
  signCert: Buffer;
  signPri: Buffer;
  subject: string;
  notBefore: Date;
  notAfter: Date;
};

// The subject in the style of a corporate joint certificate: the organization name with the
// registration number in the CN, for people to read. Registration ties the certificate to the
// issuer by the VID, not by the subject.
function subjectOf(request: SandboxCertificateRequest): JsonName {
  return [
    { CN: [`${request.organizationName}(${request.businessRegistrationNumber})`] },
    { OU: ['corporation4EC'] },
    { OU: ['etax Sandbox'] },
    { O: ['etax'] },
    { C: ['KR'] },
  ];
}

async function caSigningKey() {
  const der = createPrivateKey(SANDBOX_CA_PRIVATE_KEY_PEM).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, RSA, false, ['sign']);
}

// A positive serial number of 16 random bytes, as hex.
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f | 0x10;
  return bytes.toString('hex');
}

export async function issueSandboxCertificate(
  request: SandboxCertificateRequest,
): Promise<SandboxCertificate> {
  const keys = await webcrypto.subtle.generateKey(RSA, true, ['sign', 'verify']);
  const ca = new X509Certificate(SANDBOX_CA_CERTIFICATE_PEM);
  const notBefore = new Date(request.now.getTime() - CLOCK_SKEW_MS);
  const notAfter = new Date(notBefore.getTime() + VALIDITY_DAYS * DAY_MS);
  const randomNumber = request.randomNumber ?? randomBytes(RANDOM_NUMBER_BYTES);
  const subjectAltName = identifyDataSubjectAltName(request.organizationName,
    request.businessRegistrationNumber, randomNumber, 'sha256');
  const certificate = await X509CertificateGenerator.create({
    serialNumber: serialNumber(),
    subject: subjectOf(request),
    issuer: SANDBOX_CA_NAME,
    notBefore,
    notAfter,
    publicKey: keys.publicKey,
    signingKey: await caSigningKey(),
    signingAlgorithm: RSA,
    extensions: [
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
      await AuthorityKeyIdentifierExtension.create(ca),
      new Extension(SUBJECT_ALT_NAME_OID, false, subjectAltName),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const signPri = encryptSigningKeyFile(withRandomNumber(pkcs8, randomNumber), request.password, {
    format: 'pbes2',
    salt: randomBytes(KEY_FILE_SALT_BYTES),
    iterations: KEY_FILE_ITERATIONS,
    iv: randomBytes(SEED_IV_BYTES),
  });
  return { signCert: Buffer.from(certificate.rawData), signPri, subject: certificate.subject,
    notBefore, notAfter };
}
