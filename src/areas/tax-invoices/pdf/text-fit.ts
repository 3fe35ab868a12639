import assert from 'node:assert/strict';

// Fitting text into a fixed cell of the form. Every cell of a tax invoice has a fixed place, and
// names, addresses and remarks run up to 200 characters, so text first shrinks, then wraps, and
// at the smallest size is cut with an ellipsis: it never leaves its cell. This file only decides
// the lines; measuring is passed in, so it is pure and tested without a PDF.

// Returns the width of `text` set at `fontSize`, in points.
type MeasureText = (text: string, fontSize: number) => number;

export type FitRequest = {
  text: string;
  widthPoints: number;
  heightPoints: number;
  fontSizeMax: number;
  fontSizeMin: number;
  // Line height as a multiple of the font size.
  lineHeightRatio: number;
  // Numbers and codes stay on one line and only shrink; prose may wrap.
  wrap: boolean;
};

export type FittedText = { fontSize: number; lineHeight: number; lines: string[] };

// Half a point per step is finer than the eye tells apart on paper and keeps the search short.
const FONT_SIZE_STEP = 0.5;
const ELLIPSIS = '…';

// Korean may break between any two syllables (CSS `word-break: normal`), but text reads better
// broken at spaces, so each size first tries whole words and then syllables before shrinking.
type WrapMode = 'words' | 'syllables';
const WRAP_MODES: readonly WrapMode[] = ['words', 'syllables'];

export function fitText(request: FitRequest, measure: MeasureText): FittedText {
  assert(request.fontSizeMin > 0);
  assert(request.fontSizeMin <= request.fontSizeMax);
  const inkOnly = request.text.replace(/\s+/g, '');
  for (let size = request.fontSizeMax; size >= request.fontSizeMin; size -= FONT_SIZE_STEP) {
    // Wrapping is the costly step; skip sizes at which the text is longer than all lines end to
    // end, since no way of breaking it could fit.
    const lineHeight = size * request.lineHeightRatio;
    if (measure(inkOnly, size) > request.widthPoints * linesMax(request, lineHeight)) continue;
    for (const mode of request.wrap ? WRAP_MODES : ['words' as const]) {
      const candidate = layOut(request, size, mode, measure);
      if (candidate.fits) return candidate.text;
    }
  }
  const smallest = layOut(request, request.fontSizeMin, 'syllables', measure);
  return smallest.fits ? smallest.text : truncate(request, smallest.text, measure);
}

function linesMax(request: FitRequest, lineHeight: number): number {
  const count = request.wrap ? Math.floor(request.heightPoints / lineHeight) : 1;
  return Math.max(1, count);
}

function layOut(request: FitRequest, fontSize: number, mode: WrapMode, measure: MeasureText) {
  const lineHeight = fontSize * request.lineHeightRatio;
  const fitsWidth = (line: string) => measure(line, fontSize) <= request.widthPoints;
  const lines = request.wrap ? wrapLines(request.text, fitsWidth, mode) : [request.text];
  const fits = lines.length <= linesMax(request, lineHeight) && lines.every(fitsWidth) &&
    lines.length * lineHeight <= request.heightPoints;
  return { fits, text: { fontSize, lineHeight, lines } };
}

// Keeps the lines that have room and ends the last one with an ellipsis, so a reader sees that
// the text goes on.
function truncate(request: FitRequest, fitted: FittedText, measure: MeasureText): FittedText {
  const fitsWidth = (line: string) => measure(line, fitted.fontSize) <= request.widthPoints;
  const kept = fitted.lines.slice(0, linesMax(request, fitted.lineHeight));
  let last = kept.pop() ?? '';
  while (last !== '' && !fitsWidth(`${last}${ELLIPSIS}`)) {
    last = Array.from(last).slice(0, -1).join('');
  }
  kept.push(`${last.trimEnd()}${ELLIPSIS}`);
  assert(kept.length <= linesMax(request, fitted.lineHeight));
  return { ...fitted, lines: kept };
}

// Hangul syllables and jamo, kana and CJK ideographs: scripts that break between characters.
const SYLLABLE = '\\u1100-\\u11ff\\u3040-\\u30ff\\u3130-\\u318f\\u3400-\\u4dbf\\u4e00-\\u9fff' +
  '\\uac00-\\ud7af\\uf900-\\ufaff';
const SYLLABLE_TOKEN = new RegExp(`[${SYLLABLE}] *|[^${SYLLABLE}]+`, 'gu');

// The pieces a line may break between; a space stays with the piece before it.
function tokens(paragraph: string, mode: WrapMode): string[] {
  const words = paragraph.split(/(?<= )/);
  return mode === 'words' ? words : words.flatMap((word) => word.match(SYLLABLE_TOKEN) ?? []);
}

// Greedy wrapping. A piece wider than the line, such as an e-mail address, breaks between
// characters. "\n" forces a break; the form's own labels use it, clients' text cannot hold it.
export function wrapLines(text: string, fits: (line: string) => boolean,
  mode: WrapMode): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const token of tokens(paragraph, mode)) {
      if (fits(`${line}${token}`.trimEnd())) {
        line = `${line}${token}`;
        continue;
      }
      if (line.trim() !== '') lines.push(line.trim());
      line = '';
      for (const character of token) {
        const candidate = `${line}${character}`;
        if (line === '' || fits(candidate.trimEnd())) {
          line = candidate;
        } else {
          lines.push(line.trim());
          line = character;
        }
      }
    }
    lines.push(line.trim());
  }
  return lines;
}
