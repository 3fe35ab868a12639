// The synthetic data set of `etax generate profiles` (src/areas/businesses/profiles/generate.ts):
// deterministic, valid for the importer, with distinct valid numbers and a realistic mix.
import { describe, expect, it } from 'vitest';
import { hasValidChecksum } from '../../../src/domain/business-registration-number.ts';
import {
  csvHeader,
  formatProfileRecord,
  generateProfiles,
  generatedRegistrationNumber,
  mulberry32,
  seedFromText,
} from '../../../src/areas/businesses/profiles/generate.ts';
import {
  PROFILE_COLUMNS,
  validateProfileRecord,
} from '../../../src/areas/businesses/profiles/import.ts';

function file(count: number, seed: string, format: 'csv' | 'jsonl'): string {
  let text = format === 'csv' ? csvHeader() : '';
  for (const record of generateProfiles(count, seedFromText(seed))) {
    text += formatProfileRecord(record, format);
  }
  return text;
}

describe('generateProfiles', () => {
  it('gives the same bytes for the same seed and different bytes for another seed', () => {
    expect(file(300, '42', 'csv')).toBe(file(300, '42', 'csv'));
    expect(file(300, '42', 'jsonl')).toBe(file(300, '42', 'jsonl'));
    expect(file(300, '43', 'jsonl')).not.toBe(file(300, '42', 'jsonl'));
  });

  it('makes exactly count rows; a longer data set starts with the shorter one', () => {
    expect([...generateProfiles(0, 1)]).toHaveLength(0);
    expect([...generateProfiles(123, 1)]).toHaveLength(123);
    expect(file(50, 's', 'jsonl')).toBe(file(100, 's', 'jsonl').split('\n').slice(0, 50)
      .map((line) => `${line}\n`).join(''));
  });

  it('makes distinct numbers with valid check digits, none in the sandbox range', () => {
    const numbers = [...generateProfiles(5_000, 7)].map((row) =>
      String(row.businessRegistrationNumber));
    expect(new Set(numbers).size).toBe(5_000);
    for (const number of numbers) {
      expect(hasValidChecksum(number), number).toBe(true);
      expect(number.startsWith('999')).toBe(false);
    }
  });

  it('keeps numbers distinct across the whole count range', () => {
    const last = 10_000_000 - 1;
    expect(generatedRegistrationNumber(last, 5)).not.toBe(generatedRegistrationNumber(0, 5));
    expect(hasValidChecksum(generatedRegistrationNumber(last, 5))).toBe(true);
  });

  it('makes rows the importer accepts, with a mix of kinds, nulls and former names', () => {
    const rows = [...generateProfiles(2_000, 3)];
    for (const row of rows) {
      const result = validateProfileRecord(row);
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(Object.keys(row)).toEqual([...PROFILE_COLUMNS]);
    }
    const kinds = new Set(rows.map((row) => row.businessKind));
    expect(kinds).toEqual(new Set(['INDIVIDUAL', 'CORPORATE']));
    expect(rows.some((row) => row.roadAddress === null)).toBe(true);
    expect(rows.some((row) => row.registrationStatus === null)).toBe(true);
    expect(rows.some((row) => (row.formerNames as unknown[]).length >= 2)).toBe(true);
    expect(rows.some((row) => (row.websites as unknown[]).length >= 1)).toBe(true);
  });

  it('quotes CSV fields with commas and quotes (RFC 4180)', () => {
    const [row] = [...generateProfiles(1, 1)];
    const line = formatProfileRecord({ ...row!, organizationName: 'a, "b"' }, 'csv');
    expect(line).toContain('"a, ""b"""');
    expect(line.endsWith('\r\n')).toBe(true);
  });
});

describe('mulberry32', () => {
  it('is deterministic and in [0, 1)', () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    for (let index = 0; index < 1000; index += 1) {
      const value = a();
      expect(value).toBe(b());
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
});
