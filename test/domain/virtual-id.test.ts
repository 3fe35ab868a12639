// The VID of a joint certificate (src/domain/virtual-id.ts): virtualID = h(h(DER of
// SEQUENCE { idn PrintableString, randomNum BIT STRING })). The expected values do not come from
// our code: the HashContent is written here byte by byte and hashed twice by the openssl
// command, and the subjectAltName is read back by `openssl asn1parse`. The reader is tried on
// the shapes certificates carry (the hash named or not, the virtualID tagged [0] or bare) and
// on what it must not take for a VID.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { GeneralName, GeneralNames, OtherName } from '@peculiar/asn1-x509';
import { Constructed, ObjectIdentifier, OctetString, Sequence, Utf8String } from 'asn1js';
import { describe, expect, it } from 'vitest';
import {
  computeVirtualId,
  hashContent,
  IDENTIFY_DATA_OID,
  identifyDataSubjectAltName,
  readVid,
  VID_OID,
  vidMatches,
} from '../../src/domain/virtual-id.ts';

const NUMBER = '1234567891';
const R = Buffer.from('00112233445566778899aabbccddeeff01234567', 'hex');
const directory = mkdtempSync(join(tmpdir(), 'etax-vid-'));

function openssl(args: string[], input: Buffer): Buffer {
  return execFileSync('openssl', args, { input });
}

// SEQUENCE (0x30, 35 bytes) { PrintableString (0x13, 10) "1234567891",
//   BIT STRING (0x03, 21) with 0 unused bits and the 20 bytes of R }.
const HAND_WRITTEN_HASH_CONTENT = Buffer.concat([
  Buffer.from('3023130a', 'hex'), Buffer.from(NUMBER, 'ascii'), Buffer.from('031500', 'hex'), R,
]);

function doubleHashWithOpenssl(algorithm: 'sha1' | 'sha256', content: Buffer): Buffer {
  return openssl(['dgst', `-${algorithm}`, '-binary'],
    openssl(['dgst', `-${algorithm}`, '-binary'], content));
}

// identifyData with the given VID fields, as a subjectAltName value.
function subjectAltName(vidFields: Array<Sequence | Constructed | OctetString>,
  userInfoType = VID_OID) {
  const identifyData = new Sequence({ value: [new Utf8String({ value: '이택스' }),
    new Sequence({ value: [new Sequence({ value: [new ObjectIdentifier({ value: userInfoType }),
      new Sequence({ value: vidFields })] })] })] });
  return AsnConvert.serialize(new GeneralNames([new GeneralName({ otherName:
    new OtherName({ typeId: IDENTIFY_DATA_OID, value: identifyData.toBER() }) })]));
}
const sha256Algorithm = () => new Sequence({ value: [
  new ObjectIdentifier({ value: '2.16.840.1.101.3.4.2.1' })] });
const tagged = (bytes: Buffer) => new Constructed({ idBlock: { tagClass: 3, tagNumber: 0 },
  value: [new OctetString({ valueHex: Uint8Array.from(bytes) })] });

describe('the VID construction', () => {
  it('encodes HashContent exactly as written by hand', () => {
    expect(hashContent(NUMBER, R)).toEqual(HAND_WRITTEN_HASH_CONTENT);
  });

  it.each(['sha1', 'sha256'] as const)('hashes it twice with %s as openssl does', (algorithm) => {
    expect(computeVirtualId(NUMBER, R, algorithm))
      .toEqual(doubleHashWithOpenssl(algorithm, HAND_WRITTEN_HASH_CONTENT));
  });

  it('writes identifyData that openssl reads as otherName, realName, VID, sha256, [0] OCTET STRING',
    () => {
      const subjectAltNameDer = identifyDataSubjectAltName('주식회사 이택스', NUMBER, R, 'sha256');
      const der = Buffer.from(subjectAltNameDer);
      const file = join(directory, 'san.der');
      writeFileSync(file, der);
      const dump = execFileSync('openssl', ['asn1parse', '-inform', 'DER', '-in', file,
        '-i']).toString();
      const virtualId = doubleHashWithOpenssl('sha256', HAND_WRITTEN_HASH_CONTENT);
      expect(dump).toContain(`OBJECT            :${IDENTIFY_DATA_OID}`);
      expect(dump).toContain('UTF8STRING        :주식회사 이택스');
      expect(dump).toContain(`OBJECT            :${VID_OID}`);
      expect(dump).toContain('OBJECT            :sha256');
      expect(dump).toMatch(/cont \[ 0 \]\s+\n.*OCTET STRING\s+\[HEX DUMP\]:(\w+)/);
      expect(dump).toContain(virtualId.toString('hex').toUpperCase());
      expect(readVid(subjectAltNameDer)).toEqual({ hash: 'sha256', virtualId });
    });
});

describe('readVid', () => {
  const virtualId = computeVirtualId(NUMBER, R, 'sha256');

  it('reads a VID without a hash algorithm, and a bare virtualID', () => {
    expect(readVid(subjectAltName([tagged(virtualId)]))).toEqual({ hash: null, virtualId });
    expect(readVid(subjectAltName([sha256Algorithm(),
      new OctetString({ valueHex: Uint8Array.from(virtualId) })])))
      .toEqual({ hash: 'sha256', virtualId });
  });

  it('answers unsupported for a hash it does not know', () => {
    const md5 = new Sequence({ value: [new ObjectIdentifier({ value: '1.2.840.113549.2.5' })] });
    expect(readVid(subjectAltName([md5, tagged(virtualId)]))).toBe('unsupported');
  });

  it('answers missing for identifyData without a VID, other names, and garbage', () => {
    const realNameOnly = AsnConvert.serialize(new GeneralNames([new GeneralName({ otherName:
      new OtherName({ typeId: IDENTIFY_DATA_OID, value: new Sequence({ value: [
        new Utf8String({ value: '한국전자인증' })] }).toBER() }) })]));
    expect(readVid(realNameOnly)).toBe('missing');
    expect(readVid(subjectAltName([sha256Algorithm(), tagged(virtualId)], '1.2.3.4')))
      .toBe('missing');
    expect(readVid(subjectAltName([sha256Algorithm(), tagged(Buffer.alloc(0))]))).toBe('missing');
    expect(readVid(AsnConvert.serialize(new GeneralNames([new GeneralName({
      dNSName: 'example.com' })])))).toBe('missing');
    expect(readVid(randomBytes(40).buffer)).toBe('missing');
  });
});

describe('vidMatches', () => {
  const vid = { hash: 'sha256' as const, virtualId: computeVirtualId(NUMBER, R, 'sha256') };

  it('matches the number and R it was made from, and nothing else', () => {
    expect(vidMatches(vid, NUMBER, R)).toBe(true);
    expect(vidMatches(vid, '1048123454', R)).toBe(false);
    const otherR = Buffer.from(R);
    otherR[19] = otherR[19]! ^ 0x80;
    expect(vidMatches(vid, NUMBER, otherR)).toBe(false);
    expect(vidMatches({ ...vid, hash: 'sha1' }, NUMBER, R)).toBe(false);
  });
});
