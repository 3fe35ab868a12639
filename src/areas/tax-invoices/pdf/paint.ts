/// <reference types="pdfkit" />
import assert from 'node:assert/strict';
import type { FontName } from '../../../platform/pdf-fonts.ts';
import {
  PAGE_HEIGHT_POINTS, PAGE_WIDTH_POINTS, type Cell, type CellStyle, type CellTone,
} from './cells.ts';
import { fitText, type FittedText } from './text-fit.ts';

// Draws a layout (layout.ts) with pdfkit: a border and fill per cell, and its text fitted
// inside by text-fit.ts. Fonts and colours live here and nowhere else.

// The pdfkit document type, from the global `PDFKit` namespace of @types/pdfkit (referenced
// above, since this file draws on a document it does not create).
export type Document = PDFKit.PDFDocument;

type Style = {
  font: FontName;
  fontSizeMax: number;
  fontSizeMin: number;
  align: 'left' | 'center' | 'right';
  wrap: boolean;
  color: string;
  fill: string | null;
  border: string | null;
};

const INK = '#1a1a1a';
const RULE = '#4d4d4d';
const LABEL_FILL = '#f0f0f0';
const SANDBOX_RED = '#b00020';

// Five points is the smallest size still legible on a printed A4 page; text longer than fits at
// that size is cut with an ellipsis. Amounts may go to four because digits are simpler shapes.
const STYLES: Record<CellStyle, Style> = {
  notice: { font: 'bold', fontSizeMax: 9, fontSizeMin: 6, align: 'center', wrap: false,
    color: SANDBOX_RED, fill: '#fde8eb', border: SANDBOX_RED },
  title: { font: 'bold', fontSizeMax: 20, fontSizeMin: 12, align: 'center', wrap: false,
    color: INK, fill: null, border: RULE },
  label: { font: 'regular', fontSizeMax: 7.5, fontSizeMin: 5, align: 'center', wrap: true,
    color: INK, fill: LABEL_FILL, border: RULE },
  text: { font: 'regular', fontSizeMax: 8, fontSizeMin: 5, align: 'left', wrap: true,
    color: INK, fill: null, border: RULE },
  amount: { font: 'regular', fontSizeMax: 8, fontSizeMin: 4, align: 'right', wrap: false,
    color: INK, fill: null, border: RULE },
  center: { font: 'regular', fontSizeMax: 8, fontSizeMin: 5, align: 'center', wrap: false,
    color: INK, fill: null, border: RULE },
  marker: { font: 'bold', fontSizeMax: 11, fontSizeMin: 6, align: 'center', wrap: false,
    color: INK, fill: null, border: RULE },
  footer: { font: 'regular', fontSizeMax: 6.5, fontSizeMin: 4, align: 'left', wrap: false,
    color: '#666666', fill: null, border: null },
};

const TONES: Record<CellTone, { color: string; fill: string }> = {
  supplier: { color: '#9c1c1c', fill: '#fbeeee' },
  recipient: { color: '#1c3f9c', fill: '#eef2fb' },
};

// NanumGothic's ascender (0.92 em) plus descender (0.23 em): one line of text, no extra leading.
const LINE_HEIGHT_RATIO = 1.15;
const CELL_PADDING_POINTS = 2;
const RULE_WIDTH_POINTS = 0.5;
const WATERMARK_FONT_SIZE = 110;
const WATERMARK_OPACITY = 0.12;
const WATERMARK_ANGLE_DEGREES = -35;

export function paintCells(doc: Document, cells: Cell[]): void {
  doc.lineWidth(RULE_WIDTH_POINTS);
  for (const cell of cells) paintCell(doc, cell);
}

function paintCell(doc: Document, cell: Cell): void {
  // The layout is fixed, so a cell off the page is a bug in it, never a property of the input.
  assert(cell.x >= 0, 'cell left of the page');
  assert(cell.y >= 0, 'cell above the page');
  assert(cell.x + cell.width <= PAGE_WIDTH_POINTS, 'cell right of the page');
  assert(cell.y + cell.height <= PAGE_HEIGHT_POINTS, 'cell below the page');
  const style = STYLES[cell.style];
  const tone = cell.tone ? TONES[cell.tone] : null;
  const fill = style.fill === null ? null : (tone?.fill ?? style.fill);
  if (fill !== null) doc.rect(cell.x, cell.y, cell.width, cell.height).fill(fill);
  if (style.border !== null) {
    doc.rect(cell.x, cell.y, cell.width, cell.height).stroke(style.border);
  }
  if (cell.text === '') return;
  const inner = {
    x: cell.x + CELL_PADDING_POINTS,
    y: cell.y + CELL_PADDING_POINTS / 2,
    width: cell.width - 2 * CELL_PADDING_POINTS,
    height: cell.height - CELL_PADDING_POINTS,
  };
  doc.font(style.font);
  const fitted = fitText({ text: cell.text, widthPoints: inner.width, heightPoints: inner.height,
    fontSizeMax: style.fontSizeMax, fontSizeMin: style.fontSizeMin,
    lineHeightRatio: LINE_HEIGHT_RATIO, wrap: style.wrap }, (text, fontSize) => {
    doc.fontSize(fontSize);
    return doc.widthOfString(text);
  });
  doc.fillColor(tone?.color ?? style.color);
  paintLines(doc, fitted, inner, style.align);
}

type Box = { x: number; y: number; width: number; height: number };

// Lines are placed one by one, with no width given to pdfkit, so pdfkit never wraps or moves
// them on its own: the fitting above already decided every break.
function paintLines(doc: Document, fitted: FittedText, box: Box, align: Style['align']) {
  doc.fontSize(fitted.fontSize);
  const blockHeight = fitted.lines.length * fitted.lineHeight;
  let y = box.y + (box.height - blockHeight) / 2;
  for (const line of fitted.lines) {
    const width = doc.widthOfString(line);
    const free = box.width - width;
    const x = align === 'left' ? box.x : box.x + (align === 'center' ? free / 2 : free);
    doc.text(line, x, y, { lineBreak: false });
    y += fitted.lineHeight;
  }
}

// A large, faint word across the middle of the page, drawn over the form so that cropping the
// notice band away still leaves it.
export function paintWatermark(doc: Document, text: string): void {
  const centerX = PAGE_WIDTH_POINTS / 2;
  const centerY = PAGE_HEIGHT_POINTS / 2;
  doc.save();
  doc.rotate(WATERMARK_ANGLE_DEGREES, { origin: [centerX, centerY] });
  doc.font('bold').fontSize(WATERMARK_FONT_SIZE).fillColor(SANDBOX_RED, WATERMARK_OPACITY);
  const width = doc.widthOfString(text);
  doc.text(text, centerX - width / 2, centerY - WATERMARK_FONT_SIZE / 2, { lineBreak: false });
  doc.restore();
}
