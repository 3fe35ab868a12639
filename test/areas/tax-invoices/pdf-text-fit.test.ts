// Fitting text into a cell of the form (src/areas/tax-invoices/pdf/text-fit.ts), with a
// measure of one point per character per point of type, so the arithmetic is easy to follow:
// text shrinks, then wraps at spaces, then between Korean syllables, and at the smallest size is
// cut with an ellipsis; whatever is returned fits the cell's width and height.
import { describe, expect, it } from 'vitest';
import {
  fitText, wrapLines, type FitRequest,
} from '../../../src/areas/tax-invoices/pdf/text-fit.ts';

const measure = (text: string, fontSize: number) => Array.from(text).length * fontSize;

function request(overrides: Partial<FitRequest>): FitRequest {
  return { text: '', widthPoints: 100, heightPoints: 12, fontSizeMax: 10, fontSizeMin: 5,
    lineHeightRatio: 1.2, wrap: true, ...overrides };
}

function expectInside(fitRequest: FitRequest) {
  const fitted = fitText(fitRequest, measure);
  for (const line of fitted.lines) {
    expect(measure(line, fitted.fontSize)).toBeLessThanOrEqual(fitRequest.widthPoints);
  }
  expect(fitted.lines.length * fitted.lineHeight).toBeLessThanOrEqual(fitRequest.heightPoints);
  expect(fitted.fontSize).toBeGreaterThanOrEqual(fitRequest.fontSizeMin);
  return fitted;
}

describe('fitting text into a cell', () => {
  it('keeps short text at the largest size on one line', () => {
    expect(expectInside(request({ text: '홍길동' }))).toEqual(
      { fontSize: 10, lineHeight: 12, lines: ['홍길동'] });
  });

  it('shrinks text that is a little too wide before wrapping it', () => {
    const fitted = expectInside(request({ text: '가나다라마 바사아자차카타' }));
    expect(fitted.lines).toEqual(['가나다라마 바사아자차카타']);
    expect(fitted.fontSize).toBe(7.5);
  });

  it('wraps at spaces when the cell has room for more lines', () => {
    const fitted = expectInside(request({ text: '서울특별시 중구 세종대로 110', heightPoints: 30,
      widthPoints: 60 }));
    expect(fitted.lines.join(' ')).toBe('서울특별시 중구 세종대로 110');
    expect(fitted.lines.length).toBeGreaterThan(1);
  });

  it('breaks between Korean syllables when whole words waste the line', () => {
    const fitted = expectInside(request({ text: '가나다라마바 가나다라마바 가나다라마바',
      widthPoints: 50, heightPoints: 12, fontSizeMin: 5, fontSizeMax: 5 }));
    expect(fitted.lines.join('').replace(/ /g, '')).toBe('가나다라마바'.repeat(3));
    expect(fitted.lines).toHaveLength(2);
  });

  it('keeps numbers on one line and only shrinks them', () => {
    const fitted = expectInside(request({ text: '-99,999,999,999,999', wrap: false,
      heightPoints: 30, fontSizeMin: 4 }));
    expect(fitted.lines).toEqual(['-99,999,999,999,999']);
    expect(fitted.fontSize).toBe(5);
  });

  it('cuts text with an ellipsis when it cannot fit at the smallest size', () => {
    const text = '가'.repeat(200);
    const fitted = expectInside(request({ text, heightPoints: 24 }));
    expect(fitted.fontSize).toBe(5);
    expect(fitted.lines.at(-1)!.endsWith('…')).toBe(true);
    expect(fitted.lines.join('').length).toBeLessThan(text.length);
  });

  it('cuts a single line too', () => {
    const fitted = expectInside(request({ text: '1'.repeat(50), wrap: false }));
    expect(fitted.lines).toEqual([`${'1'.repeat(19)}…`]);
  });

  it('refuses a smallest size above the largest', () => {
    expect(() => fitText(request({ fontSizeMin: 11 }), measure)).toThrow();
  });
});

describe('wrapping lines', () => {
  const fitsTen = (line: string) => Array.from(line).length <= 10;

  it('breaks a word longer than the line between characters', () => {
    expect(wrapLines('abcdefghijklmnopqrstuvwxy@example.kr', fitsTen, 'words')).toEqual(
      ['abcdefghij', 'klmnopqrst', 'uvwxy@exam', 'ple.kr']);
  });

  it('honours forced breaks', () => {
    expect(wrapLines('종사업장\n번호', fitsTen, 'words')).toEqual(['종사업장', '번호']);
  });

  it('keeps Latin words whole when breaking between syllables', () => {
    expect(wrapLines('가나다 example 라마바사', fitsTen, 'syllables')).toEqual(
      ['가나다', 'example 라마', '바사']);
  });

  it('gives one empty line for empty text', () => {
    expect(wrapLines('', fitsTen, 'words')).toEqual(['']);
  });
});
