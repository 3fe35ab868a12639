import { TableFileError, readTableFile, type Table } from '../../platform/table-files.ts';
import { compileRecordValidator, type FieldError } from '../../platform/validation.ts';
import { CounterpartyInput } from './schemas.ts';
import type { ImportRowRecord } from './tables.ts';

// The columns of a counterparty file (docs/counterparties.md § Import) and the reading of its
// rows into counterparty inputs, each checked by the API's schema (every bad cell named) and by
// the service's rules. A header cell names a column by its key or its Korean label.

export const IMPORT_FILE_BYTES_MAX = 1024 * 1024;
const IMPORT_ROWS_MAX = 1_000;

export const IMPORT_COLUMNS = [
  { key: 'businessRegistrationNumber', label: '사업자등록번호', required: true },
  { key: 'taxRegistrationId', label: '종사업장번호', required: false },
  { key: 'organizationName', label: '상호', required: true },
  { key: 'representativeName', label: '대표자명', required: true },
  { key: 'address', label: '주소', required: false },
  { key: 'businessType', label: '업태', required: false },
  { key: 'businessItem', label: '종목', required: false },
  { key: 'managerEmail', label: '담당자 이메일', required: false },
  { key: 'managerName', label: '담당자명', required: false },
  { key: 'managerTelephone', label: '담당자 전화번호', required: false },
  { key: 'secondManagerEmail', label: '담당자2 이메일', required: false },
  { key: 'memo', label: '메모', required: false },
] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number]['key'];

// A row of the template, for people to replace.
export const IMPORT_EXAMPLE_ROW: Record<ImportColumn, string> = {
  businessRegistrationNumber: '220-81-62517', taxRegistrationId: '',
  organizationName: '주식회사 받는곳', representativeName: '이영희',
  address: '부산광역시 해운대구 센텀중앙로 97', businessType: '도소매', businessItem: '전자제품',
  managerEmail: 'account@example.com', managerName: '박수신', managerTelephone: '010-1234-5678',
  secondManagerEmail: '', memo: '',
};

const squeeze = (text: string) => text.replace(/\s+/g, '').toLowerCase();
const HEADER_NAMES = new Map<string, ImportColumn>(IMPORT_COLUMNS.flatMap((column) =>
  [[squeeze(column.key), column.key], [squeeze(column.label), column.key]]));

// Where each column is in the file; a file without a required column is refused whole.
function columnIndexes(table: Table): Map<ImportColumn, number> {
  const indexes = new Map<ImportColumn, number>();
  table.headers.forEach((header, index) => {
    const key = HEADER_NAMES.get(squeeze(header));
    if (key !== undefined && !indexes.has(key)) indexes.set(key, index);
  });
  const missing = IMPORT_COLUMNS.filter((column) => column.required && !indexes.has(column.key));
  if (missing.length > 0) {
    throw new TableFileError('The header row lacks the column(s) ' +
      `${missing.map((column) => `${column.label} (${column.key})`).join(', ')}.`);
  }
  return indexes;
}

const validateInput = compileRecordValidator<CounterpartyInput>(CounterpartyInput);

// The column of a schema error's path.
function columnOfPath(path: string): ImportColumn | null {
  const managers = /^\/managers\/(\d)(?:\/(\w+))?/.exec(path);
  if (managers !== null) {
    if (managers[1] === '1') return 'secondManagerEmail';
    if (managers[2] === 'name') return 'managerName';
    if (managers[2] === 'telephone') return 'managerTelephone';
    return 'managerEmail';
  }
  const field = path.slice(1).split('/')[0] ?? '';
  return IMPORT_COLUMNS.some((column) => column.key === field) ? field as ImportColumn : null;
}

// The input a row stands for: empty cells are left out.
function inputOf(values: Partial<Record<ImportColumn, string>>) {
  const present = (key: ImportColumn) => (values[key] === undefined || values[key] === ''
    ? undefined : values[key]);
  const managers: Array<Record<string, string | undefined>> = [];
  if (present('managerEmail') ?? present('managerName') ?? present('managerTelephone')) {
    managers.push(Object.fromEntries(Object.entries({ email: present('managerEmail'),
      name: present('managerName'), telephone: present('managerTelephone') })
      .filter(([, value]) => value !== undefined)));
  }
  if (present('secondManagerEmail') !== undefined) {
    managers.push({ email: present('secondManagerEmail') });
  }
  const input: Record<string, unknown> = {};
  for (const key of ['businessRegistrationNumber', 'taxRegistrationId', 'organizationName',
    'representativeName', 'address', 'businessType', 'businessItem', 'memo'] as const) {
    if (present(key) !== undefined) input[key] = present(key);
  }
  if (managers.length > 0) input.managers = managers;
  return input;
}

// The values as the preview keeps them: a NUL, which no stored text can hold (and which the
// schema refused), is shown as the replacement character.
const shown = (values: Record<string, string>) => Object.fromEntries(Object.entries(values)
  .map(([key, value]) => [key, value.replaceAll('\u0000', '\uFFFD')]));

export type CheckedRow = ImportRowRecord & { input: CounterpartyInput | null };

// Rules beyond the schema: the service's (`numberRule`, the checksum) and the book's (a number
// already in it or earlier in the file).
export type RowRules = {
  numberDefect(input: string): string | null;
  keyOf(input: CounterpartyInput): string;
};

// The file's rows, each with its values, its errors and, when it has none, its input.
export async function readImportFile(file: Buffer, rules: RowRules,
  existing: (keys: CounterpartyInput[]) => Promise<Set<string>>) {
  const table = await readTableFile(file, { rowsMax: IMPORT_ROWS_MAX, columnsMax: 50 });
  const indexes = columnIndexes(table);
  const checked: CheckedRow[] = table.rows.map(({ row, cells }) => {
    const values = Object.fromEntries([...indexes].map(([key, index]) =>
      [key, cells[index] ?? ''])) as Record<ImportColumn, string>;
    const result = validateInput(inputOf(values));
    const errors: ImportRowRecord['errors'] = result.ok ? []
      : result.errors.map((error: FieldError) => ({ column: columnOfPath(error.path),
        message: error.message }));
    // The checksum of a number the schema took, whatever the row's other cells.
    const number = values.businessRegistrationNumber;
    if (!errors.some((error) => error.column === 'businessRegistrationNumber') && number !== '') {
      const defect = rules.numberDefect(number);
      if (defect !== null) errors.push({ column: 'businessRegistrationNumber', message: defect });
    }
    return { row, values: shown(values), errors,
      input: errors.length === 0 && result.ok ? result.value : null };
  });
  const candidates = checked.filter((row) => row.input !== null);
  const inBook = await existing(candidates.map((row) => row.input!));
  const seen = new Map<string, number>();
  for (const row of candidates) {
    const key = rules.keyOf(row.input!);
    const earlier = seen.get(key);
    if (inBook.has(key)) {
      row.errors.push({ column: 'businessRegistrationNumber',
        message: 'is already in the counterparty book' });
    } else if (earlier !== undefined) {
      row.errors.push({ column: 'businessRegistrationNumber',
        message: `repeats row ${earlier}` });
    } else {
      seen.set(key, row.row);
      continue;
    }
    row.input = null;
  }
  return { columns: [...indexes.keys()], rows: checked };
}
