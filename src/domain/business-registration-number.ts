// Business registration numbers (사업자등록번호, BRN): ten digits shown `XXX-XX-XXXXX`, the last
// a check digit. Passing the checksum says nothing about
// the business existing. This is data and arithmetic: it imports nothing from the rest of code.

// Weights of digits 1 to 9; digit 10 is the check digit.
const CHECKSUM_WEIGHTS = [1, 3, 7, 1, 3, 7, 1, 3, 5] as const;
const DIGITS_PATTERN = /^[0-9]{10}$/;

// Removes the hyphens a number may be written with; returns the ten digits, or null when what is
// left is not exactly ten ASCII digits.
export function normalizeBusinessRegistrationNumber(input: string): string | null {
  const digits = input.replaceAll('-', '');
  return DIGITS_PATTERN.test(digits) ? digits : null;
}

// The check digit computed from the first nine digits of a normalised number.
export function businessRegistrationCheckDigit(digits: string): number {
  let sum = 0;
  for (let index = 0; index < CHECKSUM_WEIGHTS.length; index += 1) {
    sum += Number(digits[index]) * CHECKSUM_WEIGHTS[index]!;
  }
  // The ninth digit counts twice: once weighted by 5 above, once more as the tens digit of d9×5.
  sum += Math.floor((Number(digits[8]) * 5) / 10);
  return (10 - (sum % 10)) % 10;
}

// True when a normalised ten-digit number's last digit is its check digit.
export function hasValidChecksum(digits: string): boolean {
  if (!DIGITS_PATTERN.test(digits)) return false;
  return businessRegistrationCheckDigit(digits) === Number(digits[9]);
}

// The first three digits were the issuing tax office's code, and are now blocks handed out in
// order; both start at 101 (종로세무서), so 000 to 100 are never assigned. The checksum alone
// lets such numbers through: `0000000000` passes it, as does any number whose first nine digits
// weigh to a multiple of ten.
export const LOWEST_ASSIGNED_PREFIX = 101;

export function hasAssignablePrefix(digits: string): boolean {
  return DIGITS_PATTERN.test(digits) && Number(digits.slice(0, 3)) >= LOWEST_ASSIGNED_PREFIX;
}

// A number that could have been issued: its check digit matches and its first three digits are
// 101 or above. Every input a business gives is checked with this, not the checksum alone.
export function isValidBusinessRegistrationNumber(digits: string): boolean {
  return hasValidChecksum(digits) && hasAssignablePrefix(digits);
}

// Says why a normalised number is refused, for messages; null when it is valid.
export function businessRegistrationNumberDefect(digits: string): string | null {
  if (!hasValidChecksum(digits)) {
    return 'does not pass the business registration number checksum';
  }
  if (!hasAssignablePrefix(digits)) {
    return `starts with ${digits.slice(0, 3)}, a tax office code below ` +
      `${LOWEST_ASSIGNED_PREFIX} that is never assigned`;
  }
  return null;
}

// `1234567890` → `123-45-67890`, for display.
export function formatBusinessRegistrationNumber(digits: string): string {
  return `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5)}`;
}

// Digits 4–5 of a number say what kind of taxpayer it was given to. 81 to 88 are corporations
// (법인): 81, 86, 87 and 88 the head offices of for-profit corporations, 85 their branches, 82
// non-profit corporations, 83 the state and local governments, 84 foreign corporations. Every
// other code is not a corporation: 01–79 individuals with taxable business, 90–99 individuals
// with tax-exempt business, 80 apartment management offices and door-to-door sellers, 89
// religious bodies that are not corporations. Corporations are taxed by 법인세법, the others by
// 소득세법 (docs/tax-invoices.md § Late issuance (지연발급)).
export function isCorporationNumber(digits: string): boolean {
  if (!DIGITS_PATTERN.test(digits)) return false;
  const code = Number(digits.slice(3, 5));
  return code >= 81 && code <= 88;
}
