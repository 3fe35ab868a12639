// Approval numbers as the tax authority makes them: the issue date, the issuing system's code and
// an eight-character serial of digits and lower-case letters; and the one pattern every reader
// accepts.
import { describe, expect, it } from 'vitest';
import {
  APPROVAL_NUMBER_PATTERN,
  approvalNumber,
  approvalSerial,
} from '../../src/domain/approval-number.ts';

describe('approval numbers', () => {
  it('write the counter in base 36, eight characters, digits then lower-case letters', () => {
    expect(approvalSerial(1n)).toBe('00000001');
    expect(approvalSerial(35n)).toBe('0000000z');
    expect(approvalSerial(36n)).toBe('00000010');
    expect(approvalSerial(BigInt(parseInt('a1b2c3d4', 36)))).toBe('a1b2c3d4');
    expect(approvalSerial(36n ** 8n - 1n)).toBe('zzzzzzzz');
    // After 36^8 numbers the serials start again.
    expect(approvalSerial(36n ** 8n + 5n)).toBe('00000005');
  });

  it('join the issue date, the system code and the serial into 24 characters', () => {
    const number = approvalNumber({ issueDate: '2026-11-21', systemCode: '41000008',
      counter: BigInt(parseInt('uwh00005', 36)) });
    expect(number).toBe('2026112141000008uwh00005');
    expect(number).toMatch(APPROVAL_NUMBER_PATTERN);
  });

  it('are unique for distinct counter values below 36^8', () => {
    const serials = new Set<string>();
    for (let counter = 0n; counter < 5_000n; counter += 1n) serials.add(approvalSerial(counter));
    expect(serials.size).toBe(5_000);
  });

  it.each([
    ['202611214100000800000001', true],
    ['2026112141000008a1b2c3d4', true],
    ['2020111041000008uup00008', true],
    ['202611214100000000000000', true],
    ['2026112141000008A1B2C3D4', false],
    ['202611214100000a00000001', false],
    ['2026112141000008a1b2c3d', false],
    ['2026112141000008a1b2c3d45', false],
    ['20261121-41000008-a1b2c3d4', false],
    ['2026112141000008a1b2c3d\u0000', false],
    ['２０２６112141000008a1b2c3d4', false],
  ])('%s is read as an approval number: %s', (number, valid) => {
    expect(APPROVAL_NUMBER_PATTERN.test(number)).toBe(valid);
  });
});
