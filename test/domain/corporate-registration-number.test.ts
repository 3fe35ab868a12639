// The corporate registration number check digit: digits 1 to 12 weighted 1, 2, 1, 2, …, the
// products summed whole. The court registry's worked example and Samsung Electronics' number
// pass; a Luhn-style variant that splits two-digit products would refuse Samsung's.
import { describe, expect, it } from 'vitest';
import {
  corporateRegistrationCheckDigit,
  isValidCorporateRegistrationNumber,
} from '../../src/domain/corporate-registration-number.ts';
import { SANDBOX_CORPORATION } from '../../src/upstream/business-profiles/sandbox.ts';

describe('isValidCorporateRegistrationNumber', () => {
  it.each(['1101110062432', '1301110006246', SANDBOX_CORPORATION.corporateRegistrationNumber!])(
    'accepts %s', (number) => {
      expect(isValidCorporateRegistrationNumber(number)).toBe(true);
    });

  it('follows the worked example: 110111-006243 sums to 28, so the check digit is 2', () => {
    expect(corporateRegistrationCheckDigit('110111006243')).toBe(2);
  });

  it('refuses every other check digit', () => {
    for (let digit = 0; digit <= 9; digit += 1) {
      expect(isValidCorporateRegistrationNumber(`130111000624${digit}`)).toBe(digit === 6);
    }
  });

  it.each(['1101111234567', '110111-0062432', '110111006243', '11011100624321', ''])(
    'refuses %j', (number) => {
      expect(isValidCorporateRegistrationNumber(number)).toBe(false);
    });
});
