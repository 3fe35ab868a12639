import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import {
  CertificatePolicyExtension,
  KeyUsageFlags,
  KeyUsagesExtension,
  BasicConstraintsExtension,
  Extension,
  X509CertificateGenerator,
  type X509Certificate,
} from '@peculiar/x509';
import {
  encryptSigningKeyFile,
  withRandomNumber,
  type KeyFileFormat,
} from '../../../src/domain/signing-key-file.ts';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralNames, OtherName } from '@peculiar/asn1-x509';
import { Constructed, ObjectIdentifier, OctetString, Sequence, Utf8String } from 'asn1js';
import {
  computeVirtualId,
  IDENTIFY_DATA_OID,
  identifyDataSubjectAltName,
  VID_OID,
} from '../../../src/domain/virtual-id.ts';

// Real joint certificates made at test time: a test CA in the style of the Korean accredited CAs
// and end-entity signing certificates with a Korean subject, the NPKI key usage and policy OIDs,
// and signPri.key written in each of the three encrypted formats with our SEED (encrypt side).
// As a CA issues them, a certificate carries in its subjectAltName the VID of its holder's
// identity number, made with the random value R that its key (pkcs8) carries beside it.

const RSA = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};

// yessign's corporate general-purpose policy (범용 법인) and the e-tax-invoice-only policy.
export const NPKI_POLICIES = {
  corporateGeneralPurpose: '1.2.410.200005.1.1.5',
  taxInvoiceOnly: '1.2.410.200005.1.1.6.8',
};

const DAY_MS = 86_400_000;

export type TestCa = { certificate: X509Certificate; keys: CryptoKeyPair };

export async function generateKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(RSA, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

export async function createTestCa(
  name = 'CN=yessignCA-Test Class 2,OU=AccreditedCA,O=yessign,C=KR',
): Promise<TestCa> {
  const keys = await generateKeys();
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name,
    notBefore: new Date(Date.now() - 365 * DAY_MS),
    notAfter: new Date(Date.now() + 3650 * DAY_MS),
    keys,
    signingAlgorithm: RSA,
    extensions: [new BasicConstraintsExtension(true, 0, true)],
  });
  return { certificate, keys };
}

// A new test CA and a certificate it issued to one corporation: where most certificate tests
// start, issuing further certificates from the same CA as they need them.
export async function createCaWithCertificate(
  organizationName: string,
  identificationNumber: string,
): Promise<{ ca: TestCa; certificate: TestCertificate }> {
  const ca = await createTestCa();
  const certificate = await issueCertificate(ca,
    { subject: corporateSubject(organizationName, identificationNumber) });
  return { ca, certificate };
}

export type IssueOptions = {
  subject: string;
  notBefore?: Date;
  notAfter?: Date;
  keyUsages?: number;
  policies?: string[];
  keys?: CryptoKeyPair;
  // Whose VID the certificate carries: by default the ten-digit number in the subject's CN
  // (none if it has none) with a fresh R and SHA-256; null leaves the VID and R out. A `hash` of
  // null writes a VID that names no algorithm, made with SHA-256 (the certificate's signature
  // hash).
  identity?: { number: string; randomNumber?: Buffer; hash?: 'sha1' | 'sha256' | null } | null;
};

export type TestCertificate = {
  certificateDer: Buffer;
  // The key with R among its attributes when the certificate has a VID.
  pkcs8: Buffer;
  keys: CryptoKeyPair;
  randomNumber: Buffer | null;
};

// identifyData whose VID has no hashAlg, only the [0] virtualID, written by hand since etax
// itself never writes one.
function subjectAltNameWithoutHashAlgorithm(number: string, randomNumber: Buffer): ArrayBuffer {
  const virtualId = computeVirtualId(number, randomNumber, 'sha256');
  const vid = new Sequence({ value: [new Constructed({ idBlock: { tagClass: 3, tagNumber: 0 },
    value: [new OctetString({ valueHex: Uint8Array.from(virtualId) })] })] });
  const identifyData = new Sequence({ value: [new Utf8String({ value: '테스트' }),
    new Sequence({ value: [new Sequence({ value: [new ObjectIdentifier({ value: VID_OID }),
      vid] })] })] });
  return AsnConvert.serialize(new GeneralNames([new GeneralName({ otherName: new OtherName({
    typeId: IDENTIFY_DATA_OID, value: identifyData.toBER() }) })]));
}

function identityOf(options: IssueOptions) {
  if (options.identity !== undefined) return options.identity;
  const number = /\(([0-9]{10})\)/.exec(options.subject)?.[1];
  return number === undefined ? null : { number };
}

export async function issueCertificate(ca: TestCa, options: IssueOptions):
  Promise<TestCertificate> {
  const keys = options.keys ?? await generateKeys();
  const identity = identityOf(options);
  const randomNumber = identity === null ? null : identity.randomNumber ?? randomBytes(20);
  const subjectAltName = identity === null ? null : identity.hash === null
    ? subjectAltNameWithoutHashAlgorithm(identity.number, randomNumber!)
    : identifyDataSubjectAltName('테스트', identity.number, randomNumber!,
      identity.hash ?? 'sha256');
  const vid = subjectAltName === null ? [] : [new Extension('2.5.29.17', false, subjectAltName)];
  const certificate = await X509CertificateGenerator.create({
    serialNumber: randomBytes(8).toString('hex').replace(/^[89a-f]/, '1'),
    subject: options.subject,
    issuer: ca.certificate.subject,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY_MS),
    notAfter: options.notAfter ?? new Date(Date.now() + 365 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: RSA,
    extensions: [
      new KeyUsagesExtension(options.keyUsages
        ?? (KeyUsageFlags.digitalSignature | KeyUsageFlags.nonRepudiation), true),
      new CertificatePolicyExtension(options.policies ?? [NPKI_POLICIES.corporateGeneralPurpose]),
      ...vid,
    ],
  });
  const bare = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey));
  const pkcs8 = randomNumber === null ? bare : withRandomNumber(bare, randomNumber);
  return { certificateDer: Buffer.from(certificate.rawData), pkcs8, keys, randomNumber };
}

// A corporate certificate subject in the NPKI style, with the business registration number.
export function corporateSubject(organizationName: string, identificationNumber: string): string {
  return `CN=${organizationName}(${identificationNumber}),OU=corporation4EC,OU=TestBank,` +
    'O=yessign,C=KR';
}

export function signPriKey(pkcs8: Buffer, password: string, format: KeyFileFormat): Buffer {
  return encryptSigningKeyFile(pkcs8, password, {
    format,
    salt: randomBytes(8),
    iterations: 2048,
    iv: randomBytes(16),
  });
}
