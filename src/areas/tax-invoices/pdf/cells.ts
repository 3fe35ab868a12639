// The boxes the form is made of. A layout is data: every cell has a fixed place, its text and a
// style name; paint.ts decides fonts and colours. Sizes are PDF points (1/72 inch), A4.

export const PAGE_WIDTH_POINTS = 595.28;
export const PAGE_HEIGHT_POINTS = 841.89;
export const PAGE_MARGIN_POINTS = 28;
export const CONTENT_WIDTH_POINTS = PAGE_WIDTH_POINTS - 2 * PAGE_MARGIN_POINTS;

export type CellStyle =
  | 'notice' | 'title' | 'label' | 'text' | 'amount' | 'center' | 'marker' | 'footer';
// Supplier labels are tinted red and recipient labels blue, as on the paper form.
export type CellTone = 'supplier' | 'recipient';

export type Cell = {
  x: number;
  y: number;
  width: number;
  height: number;
  text: string;
  style: CellStyle;
  tone?: CellTone;
};

export type Column = { width: number; text: string; style: CellStyle; tone?: CellTone };

// One list of cells per page, first page first.
export type InvoiceLayout = { pages: Cell[][]; watermark: string | null };

// A section of the form: its cells and how far down the page it reaches.
export type Section = { cells: Cell[]; bottom: number };

// Lays the columns out left to right from `x`, one row high.
export function rowCells(x: number, y: number, height: number, columns: Column[]): Cell[] {
  const cells: Cell[] = [];
  let left = x;
  for (const column of columns) {
    cells.push({ x: left, y, width: column.width, height, text: column.text,
      style: column.style, tone: column.tone });
    left += column.width;
  }
  return cells;
}
