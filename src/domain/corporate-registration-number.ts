// Corporate registration numbers (법인등록번호): thirteen digits shown `XXXXXX-XXXXXXX`: the
// registry office (4), the kind of corporation (2), a serial (6) and a check digit. The check
// digit is the court registry's own method: digits 1 to 12 weighted 1, 2, 1, 2, …, the products
// summed whole (unlike Luhn, a product of 10 or more is not split into its digits), and the
// check digit brings the sum to a multiple of ten. Data and arithmetic: it imports nothing.

const DIGITS_PATTERN = /^[0-9]{13}$/;

export function corporateRegistrationCheckDigit(digits: string): number {
  let sum = 0;
  for (let index = 0; index < 12; index += 1) {
    sum += Number(digits[index]) * (index % 2 === 0 ? 1 : 2);
  }
  return (10 - (sum % 10)) % 10;
}

// True when a thirteen-digit number (no hyphens) ends in its check digit.
export function isValidCorporateRegistrationNumber(digits: string): boolean {
  if (!DIGITS_PATTERN.test(digits)) return false;
  return corporateRegistrationCheckDigit(digits) === Number(digits[12]);
}
