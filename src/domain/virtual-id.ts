import { createHash, timingSafeEqual } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralNames, OtherName } from '@peculiar/asn1-x509';
import {
  BaseBlock,
  BitString,
  Constructed,
  fromBER,
  ObjectIdentifier,
  OctetString,
  PrintableString,
  Sequence,
  Utf8String,
} from 'asn1js';

// The VID of a Korean joint certificate (KISA, "Subject Identification Method based on Virtual
// ID", KCAC.TS.SIVID): how a certificate names its holder's identity number without showing it.
// The CA draws a random value R, hands it to the holder inside the key file (signPri.key, the
// PrivateKeyInfo attribute randomNum) and puts into the certificate's subjectAltName
//
//   otherName { type-id 1.2.410.200004.10.1.1 (identifyData),
//     value [0] EXPLICIT SEQUENCE {
//       realName  UTF8String,
//       userInfos SEQUENCE OF SEQUENCE {
//         type 1.2.410.200004.10.1.1.1 (VID), value VID } OPTIONAL } }
//   VID ::= SEQUENCE { hashAlg AlgorithmIdentifier, virtualID [0] EXPLICIT OCTET STRING }
//
// where virtualID = h(h(DER(HashContent))) and
//   HashContent ::= SEQUENCE { idn PrintableString, randomNum BIT STRING }
// with idn the identity number (a business's registration number, ten digits) and randomNum R.
// Whoever holds the key file can so prove that the certificate was issued for a given number;
// the number in the subject, or a name, proves nothing. Sources in docs/issuers.md § Identity
// check. Data and arithmetic only; imports nothing from the rest of the code.

export const IDENTIFY_DATA_OID = '1.2.410.200004.10.1.1';
export const VID_OID = '1.2.410.200004.10.1.1.1';
export const RANDOM_NUMBER_OID = '1.2.410.200004.10.1.1.3';

// The hash algorithms a VID names, by OID, as node:crypto calls them.
const HASH_ALGORITHMS: Record<string, VidHash> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.4': 'sha224',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};
const HASH_OIDS = Object.fromEntries(Object.entries(HASH_ALGORITHMS)
  .map(([oid, name]) => [name, oid])) as Record<VidHash, string>;

export type VidHash = 'sha1' | 'sha224' | 'sha256' | 'sha384' | 'sha512';

// The VID as the certificate carries it. `hash` is null when the VID names no algorithm; the
// caller then takes the certificate's own signature hash (docs/issuers.md § Identity check).
export type CertificateVid = { hash: VidHash | null; virtualId: Buffer };

const CONTEXT_CLASS = 3;

function decodeOne(bytes: ArrayBuffer): BaseBlock | null {
  try {
    const decoded = fromBER(bytes);
    return decoded.offset === bytes.byteLength ? decoded.result : null;
  } catch {
    return null;
  }
}

function childrenOf(block: BaseBlock | undefined): BaseBlock[] | null {
  if (!(block instanceof Sequence) && !(block instanceof Constructed)) return null;
  return block.valueBlock.value;
}

// virtualID is [0] EXPLICIT OCTET STRING in every certificate seen; a bare OCTET STRING is read
// the same, since the comparison that follows is what decides.
function virtualIdOf(block: BaseBlock | undefined): Buffer | null {
  if (block instanceof OctetString) return Buffer.from(block.valueBlock.valueHexView);
  const isContextZero = block !== undefined && block.idBlock.tagClass === CONTEXT_CLASS &&
    block.idBlock.tagNumber === 0;
  if (!isContextZero) return null;
  const inner = childrenOf(block);
  return inner?.length === 1 ? virtualIdOf(inner[0]) : null;
}

function parseVid(block: BaseBlock | undefined): CertificateVid | null | 'unsupported' {
  const fields = childrenOf(block);
  if (fields === null || fields.length === 0 || fields.length > 2) return null;
  let hash: VidHash | null = null;
  if (fields.length === 2) {
    const algorithm = childrenOf(fields[0])?.[0];
    if (!(algorithm instanceof ObjectIdentifier)) return null;
    hash = HASH_ALGORITHMS[algorithm.valueBlock.toString()] ?? null;
    if (hash === null) return 'unsupported';
  }
  const virtualId = virtualIdOf(fields[fields.length - 1]);
  return virtualId === null || virtualId.length === 0 ? null : { hash, virtualId };
}

// The identifyData value: the [0] EXPLICIT wrapper may or may not still be around it, depending
// on how the otherName was decoded.
function identifyDataFields(value: ArrayBuffer): BaseBlock[] | null {
  const block = decodeOne(value);
  if (block === null) return null;
  if (block instanceof Sequence) return childrenOf(block);
  const inner = childrenOf(block);
  return inner?.length === 1 ? childrenOf(inner[0]) : null;
}

// The first VID among the identifyData's user infos, or null when there is none.
function vidOfIdentifyData(value: ArrayBuffer): CertificateVid | null | 'unsupported' {
  const fields = identifyDataFields(value);
  if (fields === null || !(fields[0] instanceof Utf8String)) return null;
  for (const userInfo of childrenOf(fields[1]) ?? []) {
    const [type, vid] = childrenOf(userInfo) ?? [];
    if (type instanceof ObjectIdentifier && type.valueBlock.toString() === VID_OID) {
      return parseVid(vid);
    }
  }
  return null;
}

export type VidReading = CertificateVid | 'missing' | 'unsupported';

// The VID in a subjectAltName extension's value (GeneralNames, DER): 'missing' when it has no
// identifyData with a VID that can be read, 'unsupported' when the VID names a hash algorithm
// etax does not know.
export function readVid(subjectAltName: ArrayBuffer): VidReading {
  let names: GeneralNames;
  try {
    names = AsnConvert.parse(subjectAltName, GeneralNames);
  } catch {
    return 'missing';
  }
  for (const name of names) {
    if (name.otherName?.typeId !== IDENTIFY_DATA_OID) continue;
    const vid = vidOfIdentifyData(name.otherName.value);
    if (vid !== null) return vid;
  }
  return 'missing';
}

// DER of HashContent ::= SEQUENCE { idn PrintableString, randomNum BIT STRING }.
export function hashContent(identityNumber: string, randomNumber: Buffer): Buffer {
  return Buffer.from(new Sequence({ value: [
    new PrintableString({ value: identityNumber }),
    new BitString({ valueHex: Uint8Array.from(randomNumber) }),
  ] }).toBER());
}

// virtualID = h(h(HashContent)).
export function computeVirtualId(identityNumber: string, randomNumber: Buffer, hash: VidHash):
  Buffer {
  const once = createHash(hash).update(hashContent(identityNumber, randomNumber)).digest();
  return createHash(hash).update(once).digest();
}

// Whether the VID was made for this identity number with this R.
export function vidMatches(
  vid: CertificateVid & { hash: VidHash },
  identityNumber: string,
  randomNumber: Buffer,
): boolean {
  const expected = computeVirtualId(identityNumber, randomNumber, vid.hash);
  return expected.length === vid.virtualId.length && timingSafeEqual(expected, vid.virtualId);
}

// The subjectAltName value (GeneralNames, DER) a CA writes for a holder: identifyData with the
// real name and one VID. Used by the sandbox CA.
export function identifyDataSubjectAltName(
  realName: string,
  identityNumber: string,
  randomNumber: Buffer,
  hash: VidHash,
): ArrayBuffer {
  const vid = new Sequence({ value: [
    new Sequence({ value: [new ObjectIdentifier({ value: HASH_OIDS[hash] })] }),
    new Constructed({ idBlock: { tagClass: CONTEXT_CLASS, tagNumber: 0 }, value: [
      new OctetString({ valueHex: Uint8Array.from(
        computeVirtualId(identityNumber, randomNumber, hash)) }),
    ] }),
  ] });
  const identifyData = new Sequence({ value: [
    new Utf8String({ value: realName }),
    new Sequence({ value: [
      new Sequence({ value: [new ObjectIdentifier({ value: VID_OID }), vid] }),
    ] }),
  ] });
  const otherName = new OtherName({ typeId: IDENTIFY_DATA_OID, value: identifyData.toBER() });
  return AsnConvert.serialize(new GeneralNames([new GeneralName({ otherName })]));
}
