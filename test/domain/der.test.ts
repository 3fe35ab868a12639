// parseDer (src/domain/der.ts): DER goes into an @peculiar/asn1-schema class, and everything
// that our own reader refused before the libraries took over is still refused, as a DerError
// and never as whatever asn1js or the schema parser threw: bytes after the element, indefinite
// and over-long lengths, a child running past its parent, empty INTEGERs, and a context tag
// where the schema wants a SEQUENCE (which the schema parser would otherwise accept).
import { randomBytes } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { PrivateKeyInfo } from '@peculiar/asn1-pkcs8';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import { describe, expect, it } from 'vitest';
import { DerError, parseDer } from '../../src/domain/der.ts';
import { PbeParameter } from '../../src/domain/pkcs5.ts';

const hex = (text: string) => Buffer.from(text.replace(/ /g, ''), 'hex');

// SEQUENCE { OID 1.2.410.200004.1.4, SEQUENCE { OCTET STRING (8 bytes), INTEGER 2048 } }
const ALGORITHM = hex('30 1a 06 08 2a831a8c9a440104 30 0e 04 08 0102030405060708 02 02 0800');

function refusal(input: Buffer, schema: { new(): unknown; name: string } = AlgorithmIdentifier) {
  try {
    parseDer(input, schema);
  } catch (error) {
    expect(error).toBeInstanceOf(DerError);
    return (error as DerError).message;
  }
  throw new Error('parseDer accepted the input');
}

describe('parseDer', () => {
  it('reads well-formed DER into the schema class', () => {
    const algorithm = parseDer(ALGORITHM, AlgorithmIdentifier);
    expect(algorithm.algorithm).toBe('1.2.410.200004.1.4');
    const parameters = parseDer(algorithm.parameters!, PbeParameter);
    expect(Buffer.from(parameters.salt)).toEqual(hex('0102030405060708'));
    expect(parameters.iterationCount).toBe(2048n);
  });

  it('reads what AsnConvert writes, so our writer and reader agree', () => {
    const written = AsnConvert.serialize(new PbeParameter({
      salt: Uint8Array.from(randomBytes(8)).buffer, iterationCount: 100_000n,
    }));
    expect(parseDer(written, PbeParameter).iterationCount).toBe(100_000n);
  });

  it('refuses an empty input and every truncation of a good element', () => {
    expect(refusal(Buffer.alloc(0))).toMatch(/^malformed DER/);
    for (let length = 1; length < ALGORITHM.length; length += 1) {
      expect(refusal(ALGORITHM.subarray(0, length))).toMatch(/^malformed DER|inconsistent/);
    }
  });

  it('refuses bytes after the element', () => {
    expect(refusal(Buffer.concat([ALGORITHM, hex('00')]))).toBe('trailing bytes after DER');
    expect(refusal(Buffer.concat([ALGORITHM, ALGORITHM]))).toBe('trailing bytes after DER');
  });

  it('refuses an indefinite length, which BER allows and DER does not', () => {
    const indefinite = hex('30 80 06 08 2a831a8c9a440104 05 00 00 00');
    expect(refusal(indefinite)).toBe('indefinite length in DER');
  });

  it('refuses a length written in more than four bytes', () => {
    const long = hex('30 85 000000000a 06 08 2a831a8c9a440104');
    expect(refusal(long)).toBe('bad DER length');
  });

  it('accepts a length in up to four bytes, as the hand-written reader did', () => {
    const long = hex('30 84 0000000a 06 08 2a831a8c9a440104');
    expect(parseDer(long, AlgorithmIdentifier).algorithm).toBe('1.2.410.200004.1.4');
  });

  it('refuses a child that runs past the end of its parent', () => {
    // The outer SEQUENCE says 8 bytes; the OID inside it takes 10. asn1js alone reads on.
    const overrun = hex('30 08 06 08 2a831a8c9a440104');
    expect(refusal(overrun)).toBe('inconsistent DER length');
  });

  it('refuses a context tag where the schema wants a SEQUENCE, at the top and in a field', () => {
    expect(refusal(hex('a0 0a 06 08 2a831a8c9a440104'))).toBe('unexpected tag class in DER');
    // PrivateKeyInfo { 0, [0] { OID }, OCTET STRING }: the algorithm is tagged [0].
    const field = hex('30 13 02 01 00 a0 0a 06 08 2a831a8c9a440104 04 02 0000');
    expect(refusal(field, PrivateKeyInfo)).toBe('unexpected tag class in DER');
    expect(() => parseDer(field, PrivateKeyInfo, { universalFieldCount: 3 }))
      .toThrow('unexpected tag class in DER');
  });

  it('lets the caller allow tagged optional fields after the untagged ones', () => {
    // PrivateKeyInfo { 0, { OID, NULL }, OCTET STRING, [0] { } }: PKCS#8 attributes are [0].
    const pkcs8 = hex('30 15 02 01 00 30 0a 06 08 2a831a8c9a440104 04 02 0000 a0 00');
    expect(refusal(pkcs8, PrivateKeyInfo)).toBe('unexpected tag class in DER');
    const read = parseDer(pkcs8, PrivateKeyInfo, { universalFieldCount: 3 });
    expect(read.version).toBe(0);
  });

  it('refuses an empty INTEGER, which asn1js reads as 0', () => {
    expect(refusal(hex('30 0c 04 08 0102030405060708 02 00'), PbeParameter))
      .toBe('empty INTEGER or OBJECT IDENTIFIER in DER');
  });

  it('refuses a wrong tag, a wrong type or a missing field as not the schema', () => {
    expect(refusal(hex('31 0a 06 08 2a831a8c9a440104'))).toBe('DER is not a AlgorithmIdentifier');
    expect(refusal(hex('30 0a 04 08 2a831a8c9a440104'))).toBe('DER is not a AlgorithmIdentifier');
    expect(refusal(hex('30 00'))).toBe('DER is not a AlgorithmIdentifier');
    expect(refusal(hex('30 0a 04 08 0102030405060708'), PbeParameter))
      .toBe('DER is not a PbeParameter');
    expect(refusal(hex('30 0e 04 08 0102030405060708 04 02 0800'), PbeParameter))
      .toBe('DER is not a PbeParameter');
  });

  it('turns what asn1js throws on malformed strings and times into a DerError', () => {
    for (const thrown of ['1e 01 51', '1c 01 57', '18 00']) {
      expect(refusal(hex(thrown))).toMatch(/^malformed DER/);
    }
  });

  it('refuses nesting deeper than the bound', () => {
    let deep = hex('05 00');
    for (let level = 0; level < 20; level += 1) {
      const length = Buffer.from([deep.length >> 8, deep.length & 0xff]);
      deep = Buffer.concat([hex('30 82'), length, deep]);
    }
    expect(refusal(deep)).toMatch(/^malformed DER/);
  });

  it('refuses random bytes with a DerError and never anything else', () => {
    for (let round = 0; round < 2000; round += 1) {
      const input = randomBytes(1 + (round % 40));
      try {
        parseDer(input, AlgorithmIdentifier);
      } catch (error) {
        expect(error).toBeInstanceOf(DerError);
      }
    }
  });
});
