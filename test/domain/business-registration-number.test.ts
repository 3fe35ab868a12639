// The business registration number rules: hyphens are removed and ten
// digits remain or the number is refused; the check digit follows the weighted sum with the
// ninth-digit rule. Every known-valid number of §1.3 and every sandbox number passes, the known
// invalid ones and every one-digit change of a valid number fail.
import { describe, expect, it } from 'vitest';
import {
  businessRegistrationCheckDigit,
  businessRegistrationNumberDefect,
  formatBusinessRegistrationNumber,
  hasValidChecksum,
  isCorporationNumber,
  isValidBusinessRegistrationNumber,
  normalizeBusinessRegistrationNumber,
} from '../../src/domain/business-registration-number.ts';
import { SANDBOX_BUSINESS_NUMBERS } from '../../src/upstream/business-profiles/sandbox.ts';

const KNOWN_VALID = [
  '124-81-00998', '120-81-47521', '220-81-62517', '107-86-14075', '132-05-57431',
  '214-86-39239', '416-81-38772', '111-11-11119', '222-22-22227', '333-33-33336',
  '888-88-88888',
];

describe('normalizeBusinessRegistrationNumber', () => {
  it.each([
    ['1248100998', '1248100998'],
    ['124-81-00998', '1248100998'],
    ['1-2-4-8-1-0-0-9-9-8', '1248100998'],
    ['--1248100998--', '1248100998'],
  ])('returns ten digits for %s', (input, expected) => {
    expect(normalizeBusinessRegistrationNumber(input)).toBe(expected);
  });

  it.each([
    '', '-', '124810099', '12481009981', '124 81 00998', '124_81_00998', '12481OO998',
    '１２４８１００９９８', '+124810099',
  ])('returns null for %j', (input) => {
    expect(normalizeBusinessRegistrationNumber(input)).toBeNull();
  });
});

describe('hasValidChecksum', () => {
  it.each(KNOWN_VALID)('accepts the known-valid number %s', (number) => {
    expect(hasValidChecksum(normalizeBusinessRegistrationNumber(number)!)).toBe(true);
  });

  it.each(Object.entries(SANDBOX_BUSINESS_NUMBERS))('accepts the sandbox %s number %s',
    (_name, number) => {
      expect(hasValidChecksum(number)).toBe(true);
    });

  it.each(['1234567890', '1248100997'])('refuses the known-invalid number %s', (number) => {
    expect(hasValidChecksum(number)).toBe(false);
  });

  it('refuses every change of the check digit of a valid number', () => {
    for (let digit = 0; digit <= 9; digit += 1) {
      const number = `124810099${digit}`;
      expect(hasValidChecksum(number)).toBe(digit === 8);
    }
  });

  it('refuses a malformed input instead of computing on it', () => {
    expect(hasValidChecksum('124-81-00998')).toBe(false);
    expect(hasValidChecksum('')).toBe(false);
  });

  it('follows the worked example: 132-05-57431 has check digit 1 with the ninth-digit rule',
    () => {
      expect(businessRegistrationCheckDigit('1320557431')).toBe(1);
    });
});

describe('isValidBusinessRegistrationNumber', () => {
  it.each(['0000000000', '1000000009', '0001000009'])(
    'refuses %s: the checksum passes, but the tax office code is below 101', (number) => {
      expect(hasValidChecksum(number)).toBe(true);
      expect(isValidBusinessRegistrationNumber(number)).toBe(false);
      expect(businessRegistrationNumberDefect(number))
        .toBe(`starts with ${number.slice(0, 3)}, a tax office code below 101 that is never ` +
          'assigned');
    });

  it.each(['1010000002', ...KNOWN_VALID.map((number) => number.replaceAll('-', '')),
    ...Object.values(SANDBOX_BUSINESS_NUMBERS)])('accepts %s', (number) => {
    expect(isValidBusinessRegistrationNumber(number)).toBe(true);
    expect(businessRegistrationNumberDefect(number)).toBeNull();
  });

  it('names the checksum first when both fail', () => {
    expect(businessRegistrationNumberDefect('0000000001'))
      .toBe('does not pass the business registration number checksum');
  });
});

describe('formatBusinessRegistrationNumber', () => {
  it('writes the XXX-XX-XXXXX form', () => {
    expect(formatBusinessRegistrationNumber('9999900005')).toBe('999-99-00005');
  });
});

describe('isCorporationNumber', () => {
  it.each([
    ['2208162517', true], // 81: a for-profit corporation's head office
    ['1248100998', true],
    ['1058212345', true], // 82: a non-profit corporation
    ['1018812345', true], // 88
    ['1234567891', false], // 45: an individual
    ['1018012345', false], // 80: an apartment office or a door-to-door seller
    ['1018912345', false], // 89: a religious body that is not a corporation
    ['1019012345', false], // 90: an individual with tax-exempt business
    ['220-81-62517', false], // not normalised
  ])('says whether %s is a corporation\'s number: %s', (digits, corporation) => {
    expect(isCorporationNumber(digits)).toBe(corporation);
  });
});
