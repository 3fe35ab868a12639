/* eslint-disable no-restricted-syntax --
   the import's progress lines are paced by the system's time. */
import { createReadStream, createWriteStream, type ReadStream, type WriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse, type CsvError } from 'csv-parse';
import type { Config } from '../config.ts';
import {
  GENERATE_COUNT_MAX,
  IMPORT_BATCH_SIZE,
  PROFILE_COLUMNS,
  csvHeader,
  formatProfileRecord,
  generateProfiles,
  importProfileBatch,
  isProfileColumn,
  seedFromText,
  validateProfileRecord,
  type ProfileFileFormat,
  type RawRecord,
  type ValidProfile,
} from '../areas/businesses/index.ts';
import { withPlatform } from './admin.ts';
import { CliError, parseChoice, parsePositiveInteger, printResult } from './output.ts';

// `etax import profiles` and `etax generate profiles` (docs/business-profiles.md § Import and
// generate). Files are streamed: memory stays constant whatever the file size.

const FORMATS = ['csv', 'jsonl'] as const;
// Rejected rows shown in the report; all of them go to --rejects.
const REPORTED_REJECTS_MAX = 100;
const PROGRESS_TTY_INTERVAL_MS = 200;
const PROGRESS_LINE_INTERVAL_MS = 5_000;
const GENERATE_CHUNK_ROWS = 1_000;

function formatOf(file: string | undefined, option: string | undefined): ProfileFileFormat | null {
  if (option !== undefined) return parseChoice('--format', option, FORMATS);
  const extension = file === undefined ? '' : path.extname(file).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.jsonl' || extension === '.ndjson') return 'jsonl';
  return null;
}

// ---------------------------------------------------------------- generate

type GenerateOptions = { count: string; seed: string; format?: string; out?: string };

function* chunks(count: number, seed: number, format: ProfileFileFormat): Generator<string> {
  let chunk = format === 'csv' ? csvHeader() : '';
  let rows = 0;
  for (const record of generateProfiles(count, seed)) {
    chunk += formatProfileRecord(record, format);
    rows += 1;
    if (rows % GENERATE_CHUNK_ROWS === 0) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}

export async function generate(options: GenerateOptions) {
  const count = parsePositiveInteger('--count', options.count);
  if (count > GENERATE_COUNT_MAX) {
    throw new CliError(`--count must be at most ${GENERATE_COUNT_MAX.toLocaleString('en')}`);
  }
  if (options.seed.length === 0 || options.seed.length > 100) {
    throw new CliError('--seed must be 1 to 100 characters');
  }
  const format = formatOf(options.out, options.format) ?? 'csv';
  const seed = seedFromText(options.seed);
  const target: Writable = options.out === undefined ? process.stdout
    : createWriteStream(options.out, { flags: 'w' });
  try {
    await pipeline(Readable.from(chunks(count, seed, format)), target,
      { end: target !== process.stdout });
  } catch (error) {
    // A reader that stops early (`| head`) is not a failure of ours.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return;
    if (options.out !== undefined) {
      throw new CliError(`cannot write ${options.out}: ${(error as Error).message}`);
    }
    throw error;
  }
}

// ---------------------------------------------------------------- import

type ImportOptions = { format?: string; rejects?: string; json?: boolean };
type Row = { line: number; raw: RawRecord } | { line: number; reasons: string[] };
type RejectedRow = { line: number; businessRegistrationNumber: string | null;
  reasons: string[] };

async function openInput(file: string): Promise<{ stream: ReadStream; size: number }> {
  try {
    const stats = await stat(file);
    if (!stats.isFile()) throw new Error('not a file');
    const stream = createReadStream(file);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    return { stream, size: stats.size };
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

async function* jsonLines(stream: ReadStream): AsyncGenerator<Row> {
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (line === 1 && text.startsWith('\uFEFF')) {
      yield* jsonLine(line, text.slice(1));
      continue;
    }
    yield* jsonLine(line, text);
  }
}

function* jsonLine(line: number, text: string): Generator<Row> {
  if (text.trim() === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    yield { line, reasons: [`not valid JSON: ${(error as Error).message}`] };
    return;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    yield { line, reasons: ['not a JSON object'] };
    return;
  }
  yield { line, raw: value as RawRecord };
}

function checkHeader(header: string[]): string[] {
  const columns = header.map((name) => name.trim());
  const unknown = columns.filter((name) => !isProfileColumn(name));
  if (unknown.length > 0) {
    throw new CliError(`unknown CSV column(s): ${unknown.join(', ')} ` +
      `(known: ${PROFILE_COLUMNS.join(', ')})`);
  }
  if (new Set(columns).size !== columns.length) throw new CliError('duplicate CSV column');
  if (!columns.includes('businessRegistrationNumber')) {
    throw new CliError('the CSV header has no businessRegistrationNumber column');
  }
  return columns;
}

// RFC 4180 through csv-parse. A malformed record (bad quoting, wrong field count) is a rejected
// row, not the end of the import: csv-parse skips it and reports it through on_skip.
async function* csvRows(stream: ReadStream): AsyncGenerator<Row> {
  const skipped: Row[] = [];
  const parser = stream.pipe(parse({
    bom: true,
    info: true,
    skip_empty_lines: true,
    skip_records_with_error: true,
    on_skip: (error: CsvError | undefined) => {
      const line = typeof error?.lines === 'number' ? error.lines : 0;
      skipped.push({ line, reasons: [`malformed CSV: ${error?.message ?? 'unknown error'}`] });
      return undefined;
    },
  }));
  stream.once('error', (error) => parser.destroy(error));
  let columns: string[] | null = null;
  for await (const { record, info } of parser as AsyncIterable<
    { record: string[]; info: { lines: number } }>) {
    yield* skipped.splice(0);
    if (columns === null) {
      columns = checkHeader(record);
      continue;
    }
    const raw: RawRecord = {};
    columns.forEach((column, index) => { raw[column] = record[index]; });
    yield { line: info.lines, raw };
  }
  yield* skipped.splice(0);
}

class Progress {
  private lastAt = 0;
  private readonly tty = Boolean(process.stderr.isTTY);
  constructor(private readonly stream: ReadStream, private readonly size: number) {}

  update(rows: number, force = false) {
    const now = Date.now();
    const interval = this.tty ? PROGRESS_TTY_INTERVAL_MS : PROGRESS_LINE_INTERVAL_MS;
    if (!force && now - this.lastAt < interval) return;
    if (this.lastAt === 0 && !force) {
      this.lastAt = now;
      return;
    }
    this.lastAt = now;
    const fraction = this.size === 0 ? 1 : Math.min(1, this.stream.bytesRead / this.size);
    const percent = Math.floor(fraction * 100);
    if (this.tty) {
      const filled = Math.round(fraction * 30);
      process.stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(30 - filled)}] ` +
        `${String(percent).padStart(3)}% ${rows.toLocaleString('en')} rows`);
    } else {
      process.stderr.write(`importing: ${percent}% (${rows} rows read)\n`);
    }
  }

  finish(rows: number) {
    if (!this.tty) return;
    this.update(rows, true);
    process.stderr.write('\n');
  }
}

type Counts = { read: number; imported: number; rejected: number };

class RejectSink {
  readonly shown: RejectedRow[] = [];
  private readonly out: WriteStream | null;
  constructor(file: string | undefined) {
    this.out = file === undefined ? null : createWriteStream(file, { flags: 'w' });
  }
  async add(rejected: RejectedRow) {
    if (this.shown.length < REPORTED_REJECTS_MAX) this.shown.push(rejected);
    if (this.out && !this.out.write(`${JSON.stringify(rejected)}\n`)) {
      await new Promise<void>((resolve) => this.out!.once('drain', () => resolve()));
    }
  }
  async close() {
    if (!this.out) return;
    const out = this.out;
    await new Promise<void>((resolve, reject) => {
      out.once('error', reject);
      out.end(() => resolve());
    });
  }
}

function numberOf(raw: RawRecord | undefined): string | null {
  const value = raw?.businessRegistrationNumber;
  return typeof value === 'string' && value !== '' ? value : null;
}

async function importRows(
  rows: AsyncIterable<Row>,
  store: (batch: ValidProfile[]) => Promise<void>,
  sink: RejectSink,
  progress: Progress,
): Promise<Counts> {
  const counts: Counts = { read: 0, imported: 0, rejected: 0 };
  let batch: ValidProfile[] = [];
  for await (const row of rows) {
    counts.read += 1;
    const result = 'raw' in row ? validateProfileRecord(row.raw)
      : { ok: false as const, reasons: row.reasons };
    if (result.ok) {
      batch.push(result.value);
    } else {
      counts.rejected += 1;
      await sink.add({ line: row.line, businessRegistrationNumber:
        numberOf('raw' in row ? row.raw : undefined), reasons: result.reasons });
    }
    if (batch.length >= IMPORT_BATCH_SIZE) {
      await store(batch);
      counts.imported += batch.length;
      batch = [];
    }
    progress.update(counts.read);
  }
  if (batch.length > 0) await store(batch);
  counts.imported += batch.length;
  progress.finish(counts.read);
  return counts;
}

function report(file: string, format: string, counts: Counts, sink: RejectSink, json: boolean) {
  const { read, imported, rejected } = counts;
  const lines = [`${file}: read ${read}, imported ${imported}, rejected ${rejected}`];
  for (const row of sink.shown) lines.push(`line ${row.line}: ${row.reasons.join('; ')}`);
  if (rejected > sink.shown.length) {
    lines.push(`… ${rejected - sink.shown.length} more rejected rows (use --rejects <file>)`);
  }
  printResult(json, { file, format, read, imported, rejected, rejects: sink.shown },
    lines.join('\n'));
}

export async function importProfiles(config: Config, file: string, options: ImportOptions) {
  const format = formatOf(file, options.format);
  if (format === null) {
    throw new CliError('cannot tell the format from the file name: use .csv, .jsonl or .ndjson, ' +
      'or --format csv|jsonl');
  }
  const { stream, size } = await openInput(file);
  const sink = new RejectSink(options.rejects);
  try {
    const rows = format === 'csv' ? csvRows(stream) : jsonLines(stream);
    const counts = await withPlatform(config, (platform) =>
      importRows(rows, (batch) => importProfileBatch(platform.database.db, batch), sink,
        new Progress(stream, size)));
    report(file, format, counts, sink, Boolean(options.json));
  } finally {
    stream.destroy();
    await sink.close();
  }
}
