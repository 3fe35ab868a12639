import { createHash } from 'node:crypto';

// Numbers the document sandboxes derive from an issuance key, so the same request always gets
// the same issue number, amounts and confirmation number, and different requests differ.

export function digitsFrom(seed: string, count: number): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  let digits = '';
  for (let index = 0; digits.length < count; index += 1) {
    digits += String(parseInt(hex.slice((index * 2) % 60, ((index * 2) % 60) + 2), 16) % 10);
  }
  return digits;
}

// `1234-5678-9012-3456`: four groups of four digits.
export function groupedNumber(seed: string): string {
  return (digitsFrom(seed, 16).match(/.{4}/g) ?? []).join('-');
}

// A won amount between 10,000,000 and 999,999,999, for sandbox figures.
export function sandboxAmount(seed: string): number {
  return 10_000_000 + (Number(digitsFrom(seed, 9)) % 990_000_000);
}

// `YYYY. MM. DD.` in Korea's time zone, the way Korean certificates print dates.
export function koreanDate(date: Date): string {
  const seoul = new Date(date.getTime() + 9 * 3_600_000);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${seoul.getUTCFullYear()}. ${pad(seoul.getUTCMonth() + 1)}. ${pad(seoul.getUTCDate())}.`;
}
