// `npm run bench:certificates`: field accuracy and speed of certificate OCR
// (docs/certificate-verification.md § Accuracy). Method: `--count` (default 50) certificates are
// invented from a fixed seed (bench/certificates/fixtures.ts; `--seed` draws another set, to
// check that a change holds beyond the images it was measured on), half corporations and half
// sole proprietors, each rendered as a 150 dpi page and degraded like a phone photo (60–85 % of
// the size, rotated up to ±2°, Gaussian noise, JPEG quality 55–85). Each photo goes through the
// service's own reader (preprocessing, the OCR pool with one worker, field reading) one at a
// time, after one warm-up image that starts the worker. A field is right when it equals the
// printed value; names, addresses and business type/item are compared without whitespace, as the
// tax authority compares them. The section between the certificates markers of
// bench/RESULTS.md is replaced; `--no-write` only prints it.
import os from 'node:os';
import { parseArgs } from 'node:util';
import {
  createCertificateReader,
  createOcrPool,
  createPdfReader,
  FIELD_NAMES,
  PDF_READER_DEFAULTS,
  type FieldName,
} from '../../src/areas/certificate-verification/index.ts';
import { marked, writeResultsSection } from '../results-file.ts';
import {
  certificateImage,
  degradeImage,
  randomDegradation,
  randomFacts,
  seededRandom,
  type CertificateFacts,
} from './fixtures.ts';

const DEFAULT_SEED = 2026;
const RESULTS_FILE = new URL('../RESULTS.md', import.meta.url);
const SECTION = 'certificates';

const WHITESPACE_FREE: ReadonlySet<FieldName> = new Set(['organizationName', 'representativeName',
  'address', 'businessType', 'businessItem']);

function expectedValue(facts: CertificateFacts, field: FieldName): string | null {
  return field === 'kind' ? facts.kind : facts[field];
}

function isRight(field: FieldName, expected: string | null, read: string | null): boolean {
  if (expected === null) return read === null;
  if (read === null) return false;
  if (!WHITESPACE_FREE.has(field)) return expected === read;
  const squeeze = (text: string) => text.replace(/\s+/gu, '').replace('(주)', '주식회사');
  return squeeze(expected) === squeeze(read);
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
const seconds = (ms: number) => (ms / 1000).toFixed(2);

async function main() {
  const { values } = parseArgs({ options: {
    count: { type: 'string', default: '50' },
    seed: { type: 'string', default: String(DEFAULT_SEED) },
    'no-write': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  } });
  const count = Number(values.count);
  const seed = Number(values.seed);
  const random = seededRandom(seed);
  const pool = createOcrPool({ workers: 1, queueMax: 0 });
  // Only images are read here; the PDF reader starts no thread unless given a PDF.
  const pdfReader = createPdfReader({ ...PDF_READER_DEFAULTS, workers: 1, queueMax: 0 });
  const reader = createCertificateReader(pool, pdfReader);
  const right = Object.fromEntries(FIELD_NAMES.map((name) => [name, 0])) as Record<FieldName,
    number>;
  let allRight = 0;
  const durations: number[] = [];
  let cpuMicros = 0;
  try {
    const warmUp = await certificateImage(randomFacts(seededRandom(1), 0));
    await reader.read('PNG', warmUp);
    for (let index = 0; index < count; index += 1) {
      const facts = randomFacts(random, index);
      const photo = await degradeImage(await certificateImage(facts), randomDegradation(random));
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      const reading = await reader.read('JPEG', photo);
      durations.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuBefore);
      cpuMicros += cpu.user + cpu.system;
      let every = true;
      for (const field of FIELD_NAMES) {
        const read = reading.fields[field]?.value ?? null;
        if (isRight(field, expectedValue(facts, field), read)) right[field] += 1;
        else {
          every = false;
          const expected = expectedValue(facts, field);
          if (values.verbose) console.log(`#${index} ${field}: ${expected} ≠ ${read}`);
        }
      }
      if (every) allRight += 1;
    }
  } finally {
    await Promise.all([pool.close(), pdfReader.close()]);
  }
  durations.sort((a, b) => a - b);
  const mean = durations.reduce((sum, value) => sum + value, 0) / durations.length;
  const median = durations[Math.floor(durations.length / 2)]!;
  const p95 = durations[Math.min(durations.length - 1, Math.floor(durations.length * 0.95))]!;
  const cpuPerImage = cpuMicros / 1000 / count;
  const load = os.loadavg()[0]!.toFixed(1);
  const rows = FIELD_NAMES.map((field) => `| ${field} | ${percent(right[field], count)} |`);
  const section = marked(SECTION, [
    '## Certificate OCR accuracy (`npm run bench:certificates`)',
    '',
    `${count} generated photo-like certificates (seed ${seed}), read one at a time by one OCR ` +
      `worker on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'unknown CPU'}, Node ` +
      `${process.version}, ${new Date().toISOString().slice(0, 10)}.`,
    '',
    `- Every field right: **${percent(allRight, count)}** of the images (goal ≥ 95 %).`,
    `- Seconds per image (wall clock): mean ${seconds(mean)}, median ${seconds(median)}, p95 ` +
      `${seconds(p95)} (goal ≤ 2 s), with a load average of ${load} at the end of the run.`,
    `- CPU seconds per image (every thread of the process, OCR worker included): ` +
      `${seconds(cpuPerImage)}: the wall clock of an otherwise idle core.`,
    '',
    '| field | right |',
    '| --- | --- |',
    ...rows,
  ]);
  console.log(section);
  if (!values['no-write']) {
    writeResultsSection(RESULTS_FILE, SECTION, section);
  }
}

await main();
