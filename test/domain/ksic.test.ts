// The KSIC 11th revision sections: 21 sections, A to U in order, each with
// its Korean and English name; anything else is not a section.
import { describe, expect, it } from 'vitest';
import {
  findKsicSection,
  KSIC_SECTION_CODES,
  KSIC_SUB_SUBCLASS_PATTERN,
} from '../../src/domain/ksic.ts';

describe('KSIC sections', () => {
  it('lists the 21 sections A to U in order', () => {
    expect(KSIC_SECTION_CODES).toEqual('ABCDEFGHIJKLMNOPQRSTU'.split(''));
  });

  it.each([
    ['A', '농업, 임업 및 어업'],
    ['C', '제조업'],
    ['G', '도매 및 소매업'],
    ['J', '정보통신업'],
    ['U', '국제 및 외국기관'],
  ])('names section %s %s', (code, nameKorean) => {
    expect(findKsicSection(code)?.nameKorean).toBe(nameKorean);
  });

  it('gives every section a Korean and an English name', () => {
    for (const code of KSIC_SECTION_CODES) {
      const section = findKsicSection(code)!;
      expect(section.nameKorean.length).toBeGreaterThan(0);
      expect(section.nameEnglish.length).toBeGreaterThan(0);
    }
  });

  it.each(['V', 'a', '', 'AB', '01'])('finds no section for %j', (code) => {
    expect(findKsicSection(code)).toBeNull();
  });

  it('recognises five-digit sub-subclass codes only', () => {
    expect(KSIC_SUB_SUBCLASS_PATTERN.test('58222')).toBe(true);
    expect(KSIC_SUB_SUBCLASS_PATTERN.test('5822')).toBe(false);
    expect(KSIC_SUB_SUBCLASS_PATTERN.test('J5822')).toBe(false);
  });
});
