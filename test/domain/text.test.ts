// The text checks for documents sent to the tax authority: characters outside the Basic
// Multilingual Plane (and lone surrogates) are found with their position, Hangul, Hanja and
// symbols inside the BMP pass, and whitespace-only text, Korean ideographic space included, is
// blank. The printed-text pattern of the schemas refuses controls, bidirectional formatting
// characters and whitespace-only text, and takes Korean text, spaces inside and the empty string
// (which the schemas' minimum lengths govern).
import { describe, expect, it } from 'vitest';
import {
  firstNonBmpCharacter,
  formatCodePoint,
  isBlank,
  PRINTED_TEXT_PATTERN,
} from '../../src/domain/text.ts';

describe('firstNonBmpCharacter', () => {
  it.each([
    '', '주식회사 이택스', '漢字 한자', 'tax@example.co.kr', '①②③ ￦1,000 ※', '\uffff',
    'Ｆｕｌｌｗｉｄｔｈ',
  ])('returns null for %j, which is all inside the BMP', (text) => {
    expect(firstNonBmpCharacter(text)).toBeNull();
  });

  it.each([
    ['😀', 0, 0x1f600],
    ['클라우드 😀 사용료', 5, 0x1f600],
    ['a𠀀b', 1, 0x20000], // CJK Extension B, a rare Hanja
    ['ok👍🏽', 2, 0x1f44d], // the first of two
    ['\u{10000}', 0, 0x10000],
  ])('finds the character in %j at %i', (text, index, codePoint) => {
    expect(firstNonBmpCharacter(text)).toEqual({ index, codePoint });
  });

  it('finds a lone high or low surrogate', () => {
    expect(firstNonBmpCharacter('ab\ud83d')).toEqual({ index: 2, codePoint: 0xd83d });
    expect(firstNonBmpCharacter('\ude00x')).toEqual({ index: 0, codePoint: 0xde00 });
  });
});

describe('formatCodePoint', () => {
  it('writes the code point the way Unicode does', () => {
    expect(formatCodePoint(0x1f600)).toBe('U+1F600');
    expect(formatCodePoint(0x41)).toBe('U+0041');
    expect(formatCodePoint(0x20000)).toBe('U+20000');
  });
});

describe('isBlank', () => {
  it.each(['', ' ', '   ', '\u3000', ' \u00a0 ', '\t'])('returns true for %j', (text) => {
    expect(isBlank(text)).toBe(true);
  });

  it.each(['a', ' 홍길동 ', '-', '\u3000가'])('returns false for %j', (text) => {
    expect(isBlank(text)).toBe(false);
  });
});

describe('PRINTED_TEXT_PATTERN', () => {
  const printed = new RegExp(PRINTED_TEXT_PATTERN, 'u');

  it.each(['', '홍길동', ' 주식회사 이택스 ', '커피 외 2건', 'A&B <Co>', '\u3000가', '\u00a0-'])(
    'takes %j', (text) => {
      expect(printed.test(text)).toBe(true);
    });

  it.each([' ', '\u3000', ' \u00a0 ', 'a\u0000b', 'a\nb', 'a\u007fb', '\u202aa', 'abc\u202e',
    '\u202b', '\u202c', '\u202d', '\u2066x', '\u2067', '\u2068', 'x\u2069'])(
    'refuses %j', (text) => {
      expect(printed.test(text)).toBe(false);
    });
});
