import 'reflect-metadata';
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import {
  CertificatePolicyExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  X509Certificate,
} from '@peculiar/x509';
import { isValidBusinessRegistrationNumber } from './business-registration-number.ts';

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
};

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

type Validity = 'valid' | 'expired' | 'notYetValid';

export function validityAt(facts: Pick<CertificateFacts, 'notBefore' | 'notAfter'>, now: Date):
  Validity {
  if (now.getTime() < facts.notBefore.getTime()) return 'notYetValid';
  if (now.getTime() > facts.notAfter.getTime()) return 'expired';
  return 'valid';
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

// Corporate-form words that certificates and registrations write in different ways.
const CORPORATE_FORM_PATTERN = /\(주\)|㈜|주식회사|\(유\)|유한회사|\(사\)|사단법인|\(재\)|재단법인/g;

function comparableName(name: string): string {
  return name.normalize('NFC').replace(CORPORATE_FORM_PATTERN, '')
    .replace(/[\s().,\-_]/g, '').toLowerCase();
}

// Ten-digit runs in the subject (hyphens ignored) that could be business registration numbers.
function numbersInSubject(subject: string): string[] {
  const digitsOnly = subject.replaceAll('-', '');
  return (digitsOnly.match(/(?<![0-9])[0-9]{10}(?![0-9])/g) ?? [])
    .filter(isValidBusinessRegistrationNumber);
}

function subjectValues(subject: string, attribute: string): string[] {
  const pattern = new RegExp(`(?:^|,)\\s*${attribute}=([^,]+)`, 'gi');
  return [...subject.matchAll(pattern)].map((match) => match[1]!.trim());
}

type BusinessMatch = 'registrationNumber' | 'organizationName' | 'none';

// Whether the certificate names the business: its registration number appears in the subject,
// or, when the subject carries no registration number at all, its organization name appears in
// the subject's CN or O. A subject with a different registration number never matches by name.
export function certificateNamesBusiness(
  facts: CertificateFacts,
  business: { identificationNumber: string; organizationName: string },
): BusinessMatch {
  const numbers = numbersInSubject(facts.subject);
  if (numbers.includes(business.identificationNumber)) return 'registrationNumber';
  if (numbers.length > 0) return 'none';
  const wanted = comparableName(business.organizationName);
  if (wanted.length === 0) return 'none';
  const names = [...subjectValues(facts.subject, 'CN'), ...subjectValues(facts.subject, 'O')];
  return names.some((name) => comparableName(name).includes(wanted)) ? 'organizationName' : 'none';
}
