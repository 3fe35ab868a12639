// Tables people upload (counterparty imports, the dashboard's invoice upload): a CSV file or an
// Excel workbook (xlsx) read into a header row and text cells. CSV is read by csv-parse and xlsx
// by exceljs, both loaded with the first file. A CSV file saved by Korean Excel is often in
// EUC-KR (CP949) rather than UTF-8: text that is not valid UTF-8 is read as EUC-KR.
//
// An xlsx file is a zip archive, and a small archive can unpack to gigabytes. Before exceljs
// unpacks one, the sizes its central directory declares are added up and a file that declares
// more than UNPACKED_BYTES_MAX is refused, as is one that needs zip64 (entries over 4 GiB).

type TableKind = 'csv' | 'xlsx';
type TableRow = { row: number; cells: string[] };
export type Table = { kind: TableKind; headers: string[]; rows: TableRow[] };

// A file that cannot be read as a table, or is over a limit; the message says which.
export class TableFileError extends Error {}

const UNPACKED_BYTES_MAX = 32 * 1024 * 1024;
const CELL_LENGTH_MAX = 2_000;

const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;

function tableKindOf(file: Buffer): TableKind {
  return file.subarray(0, 4).equals(ZIP_LOCAL_HEADER) ? 'xlsx' : 'csv';
}

// The total of the uncompressed sizes a zip archive's central directory declares.
function declaredUnpackedBytes(file: Buffer): number {
  const searchFrom = Math.max(0, file.length - 22 - 0xffff);
  let end = -1;
  for (let at = file.length - 22; at >= searchFrom; at -= 1) {
    if (file.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new TableFileError('The workbook is not a readable xlsx file.');
  const entries = file.readUInt16LE(end + 10);
  let at = file.readUInt32LE(end + 16);
  let total = 0;
  for (let index = 0; index < entries; index += 1) {
    if (at + 46 > file.length || file.readUInt32LE(at) !== CENTRAL_DIRECTORY_ENTRY) {
      throw new TableFileError('The workbook is not a readable xlsx file.');
    }
    const size = file.readUInt32LE(at + 24);
    if (size === 0xffffffff) throw new TableFileError('The workbook is too large to read.');
    total += size;
    at += 46 + file.readUInt16LE(at + 28) + file.readUInt16LE(at + 30) +
      file.readUInt16LE(at + 32);
  }
  return total;
}

function decodeText(file: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(file);
  } catch {
    return new TextDecoder('euc-kr').decode(file);
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  if (typeof value === 'object') {
    const object = value as { richText?: Array<{ text: string }>; text?: unknown;
      result?: unknown; error?: unknown };
    if (Array.isArray(object.richText)) return object.richText.map((run) => run.text).join('');
    if ('result' in object) return cellText(object.result);
    if ('text' in object) return cellText(object.text);
    if ('error' in object) return String(object.error);
    return '';
  }
  return String(value);
}

const trimmed = (cells: string[]) => cells.map((cell) => cell.trim());
const isBlank = (cells: string[]) => cells.every((cell) => cell === '');

type Limits = { rowsMax: number; columnsMax: number };

function finish(kind: TableKind, lines: TableRow[], limits: Limits): Table {
  const header = lines.find((line) => !isBlank(line.cells));
  if (header === undefined) throw new TableFileError('The file has no header row.');
  const rows = lines.filter((line) => line.row > header.row && !isBlank(line.cells));
  if (rows.length === 0) throw new TableFileError('The file has a header row but no rows.');
  if (rows.length > limits.rowsMax) {
    throw new TableFileError(`The file has ${rows.length} rows; at most ${limits.rowsMax} ` +
      'are read at once.');
  }
  for (const line of [header, ...rows]) {
    if (line.cells.length > limits.columnsMax) {
      throw new TableFileError(`Row ${line.row} has more than ${limits.columnsMax} columns.`);
    }
    if (line.cells.some((cell) => cell.length > CELL_LENGTH_MAX)) {
      throw new TableFileError(`Row ${line.row} has a cell longer than ${CELL_LENGTH_MAX} ` +
        'characters.');
    }
  }
  return { kind, headers: header.cells, rows };
}

async function readCsv(file: Buffer, limits: Limits): Promise<Table> {
  const { parse } = await import('csv-parse/sync');
  let records: string[][];
  try {
    records = parse(decodeText(file), { bom: true, relax_column_count: true,
      skip_empty_lines: false, max_record_size: CELL_LENGTH_MAX * limits.columnsMax,
      to_line: limits.rowsMax + 50 }) as string[][];
  } catch (error) {
    const line = (error as { lines?: unknown }).lines;
    throw new TableFileError(`The CSV file could not be read${typeof line === 'number'
      ? ` (line ${line})` : ''}: check its quotes and commas.`);
  }
  const lines = records.map((cells, index) => ({ row: index + 1, cells: trimmed(cells) }));
  // A file with more rows than were read is over the limit.
  if (records.length >= limits.rowsMax + 50) {
    throw new TableFileError(`The file has more than ${limits.rowsMax} rows.`);
  }
  return finish('csv', lines, limits);
}

async function readXlsx(file: Buffer, limits: Limits): Promise<Table> {
  if (declaredUnpackedBytes(file) > UNPACKED_BYTES_MAX) {
    throw new TableFileError('The workbook unpacks to more than ' +
      `${UNPACKED_BYTES_MAX / 1024 / 1024} MiB.`);
  }
  const { default: ExcelJS } = await import('exceljs');
  const book = new ExcelJS.Workbook();
  try {
    await book.xlsx.load(file as unknown as ArrayBuffer);
  } catch {
    throw new TableFileError('The workbook is not a readable xlsx file.');
  }
  const sheet = book.worksheets[0];
  if (sheet === undefined) throw new TableFileError('The workbook has no sheet.');
  if (sheet.rowCount > limits.rowsMax + 50) {
    throw new TableFileError(`The sheet has more than ${limits.rowsMax} rows.`);
  }
  const lines: TableRow[] = [];
  sheet.eachRow({ includeEmpty: false }, (row, rowNumber) => {
    const values = Array.isArray(row.values) ? row.values.slice(1) : [];
    lines.push({ row: rowNumber, cells: trimmed(Array.from(values, cellText)) });
  });
  return finish('xlsx', lines, limits);
}

// Reads an uploaded table; TableFileError for anything that is not one.
export async function readTableFile(file: Buffer, limits: Limits): Promise<Table> {
  if (file.length === 0) throw new TableFileError('The file is empty.');
  return tableKindOf(file) === 'xlsx' ? readXlsx(file, limits) : readCsv(file, limits);
}
