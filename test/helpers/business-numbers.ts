import { hasValidChecksum } from '../../src/domain/business-registration-number.ts';

// `count` distinct business registration numbers with a valid checksum, starting with `prefix`
// (four digits): each serial after the prefix takes its first valid check digit.
export function validNumbers(count: number, prefix = '1234'): string[] {
  const numbers: string[] = [];
  for (let serial = 0; numbers.length < count; serial += 1) {
    const base = `${prefix}${String(serial).padStart(9 - prefix.length, '0')}`;
    const digit = [...Array(10).keys()]
      .find((candidate) => hasValidChecksum(`${base}${candidate}`));
    if (digit !== undefined) numbers.push(`${base}${digit}`);
  }
  return numbers;
}
