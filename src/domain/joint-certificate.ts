import 'reflect-metadata';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import {
  CertificatePolicyExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  X509Certificate,
} from '@peculiar/x509';
import { readVid, vidMatches, type VidHash, type VidReading } from './virtual-id.ts';

// The public facts of a joint certificate's signing certificate (signCert.der, from the owner's
// NPKI folder), and the checks that tie it to a private key and a business. This is data and
// arithmetic over node:crypto and @peculiar/x509; it imports nothing from the rest of the code.

export type CertificateFacts = {
  subject: string;
  issuerName: string;
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  keyUsages: string[];
  policies: string[];
  // The SubjectPublicKeyInfo, DER, to compare with the private key's public half.
  subjectPublicKeyInfo: Buffer;
  // The VID of its subjectAltName (virtual-id.ts), with the hash it is made with: the one it
  // names, else the hash of the certificate's own signature (SHA-256, or SHA-1 on old ones).
  vid: VidReading;
};

const SUBJECT_ALT_NAME_OID = '2.5.29.17';
const SIGNATURE_HASHES: Record<string, VidHash> = {
  'SHA-1': 'sha1', 'SHA-256': 'sha256', 'SHA-384': 'sha384', 'SHA-512': 'sha512',
};

function vidOf(certificate: X509Certificate): VidReading {
  const extension = certificate.getExtension(SUBJECT_ALT_NAME_OID);
  if (extension === null) return 'missing';
  const vid = readVid(extension.value);
  if (typeof vid === 'string' || vid.hash !== null) return vid;
  const { hash } = certificate.signatureAlgorithm as { hash?: { name?: string } };
  const signatureHash = SIGNATURE_HASHES[hash?.name ?? ''];
  return signatureHash === undefined ? 'unsupported' : { ...vid, hash: signatureHash };
}

const KEY_USAGE_NAMES: Array<[KeyUsageFlags, string]> = [
  [KeyUsageFlags.digitalSignature, 'digitalSignature'],
  [KeyUsageFlags.nonRepudiation, 'nonRepudiation'],
  [KeyUsageFlags.keyEncipherment, 'keyEncipherment'],
  [KeyUsageFlags.dataEncipherment, 'dataEncipherment'],
  [KeyUsageFlags.keyAgreement, 'keyAgreement'],
  [KeyUsageFlags.keyCertSign, 'keyCertSign'],
  [KeyUsageFlags.cRLSign, 'cRLSign'],
];

// Returns the certificate's facts, or null when the bytes are not a DER X.509 certificate.
export function readCertificate(der: Buffer): CertificateFacts | null {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(new Uint8Array(der));
  } catch {
    return null;
  }
  const usage = certificate.getExtension(KeyUsagesExtension);
  const policy = certificate.getExtension(CertificatePolicyExtension);
  return {
    subject: certificate.subject,
    issuerName: certificate.issuer,
    serialNumber: certificate.serialNumber,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    keyUsages: usage
      ? KEY_USAGE_NAMES.filter(([flag]) => (usage.usages & flag) !== 0).map(([, name]) => name)
      : [],
    policies: policy ? [...policy.policies] : [],
    subjectPublicKeyInfo: Buffer.from(certificate.publicKey.rawData),
    vid: vidOf(certificate),
  };
}

// A signing certificate carries digitalSignature or nonRepudiation; a certificate without a
// key usage extension places no limit. Joint certificates' kmCert.der (key management) has
// neither, so sending it by mistake is caught here.
export function allowsSigning(facts: CertificateFacts): boolean {
  if (facts.keyUsages.length === 0) return true;
  return facts.keyUsages.includes('digitalSignature') ||
    facts.keyUsages.includes('nonRepudiation');
}

// The private key of a PKCS#8 DER, or null when Node cannot read it.
export function readPrivateKey(pkcs8: Buffer): KeyObject | null {
  try {
    return createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  } catch {
    return null;
  }
}

export function keyMatchesCertificate(privateKey: KeyObject, facts: CertificateFacts): boolean {
  const publicKey = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  return publicKey.equals(facts.subjectPublicKeyInfo);
}

type IdentityCheck = 'match' | 'mismatch' | 'missing';

// Whether the certificate was issued for this identity number (a business registration number):
// its VID, recomputed with the random value R from its key file. 'missing' when either half is
// absent or the VID's hash is unknown, so nothing can be proved either way.
export function checkIdentity(
  facts: Pick<CertificateFacts, 'vid'>,
  randomNumber: Buffer | null,
  identityNumber: string,
): IdentityCheck {
  const { vid } = facts;
  if (typeof vid === 'string' || vid.hash === null || randomNumber === null) return 'missing';
  return vidMatches({ ...vid, hash: vid.hash }, identityNumber, randomNumber) ? 'match'
    : 'mismatch';
}
