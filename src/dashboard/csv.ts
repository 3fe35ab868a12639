// CSV as spreadsheets read it (RFC 4180, CRLF, a BOM so Excel takes it as UTF-8). A text that a
// spreadsheet would run as a formula (=, +, -, @, tab, carriage return first) is prefixed with
// an apostrophe; numbers are written as they are.

const FORMULA_START = /^[=+\-@\t\r]/;

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = String(value);
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

export function toCsv<K extends string>(columns: readonly K[],
  rows: ReadonlyArray<Partial<Record<K, unknown>>>): string {
  const lines = [columns.join(','), ...rows.map((row) =>
    columns.map((column) => cell(row[column])).join(','))];
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}
