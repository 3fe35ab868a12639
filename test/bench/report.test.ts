import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeResults } from '../../bench/report.ts';
import { marked as markedSection, writeResultsSection } from '../../bench/results-file.ts';

// bench/RESULTS.md holds the sections of several benchmarks; a run of `npm run bench` replaces
// its own database mode's section and keeps every other one where it is.

const marked = (name: string, text: string) => markedSection(name, [text]);

describe('writing bench/RESULTS.md', () => {
  it('replaces its own section and keeps every other marked section in place', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'etax-results-')), 'RESULTS.md');
    writeFileSync(file, ['# old header', marked('results:postgres', 'old postgres'),
      marked('results:embedded', 'embedded'), marked('history', 'history'),
      marked('results:revenue-expense-feed', 'feed'), marked('certificates', 'ocr'),
      marked('results:bank-transactions', 'bank')].join('\n\n'));
    writeResults(file, 'postgres', marked('results:postgres', 'new postgres'));
    const written = readFileSync(file, 'utf8');
    expect(written).not.toContain('old postgres');
    const order = ['new postgres', 'embedded', 'history', 'feed', 'ocr', 'bank']
      .map((text) => written.indexOf(`\n${text}\n`));
    expect(order.every((position) => position > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('puts a mode\'s first section before the others', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'etax-results-')), 'RESULTS.md');
    writeFileSync(file, marked('history', 'history'));
    writeResults(file, 'embedded', marked('results:embedded', 'first embedded'));
    const written = readFileSync(file, 'utf8');
    expect(written.indexOf('first embedded')).toBeLessThan(written.indexOf('\nhistory\n'));
  });
});

describe('writing one benchmark\'s section', () => {
  it('replaces the section in place, or appends it, and takes its text literally', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'etax-results-')), 'RESULTS.md');
    writeFileSync(file, [marked('history', 'history'), marked('certificates', 'old ocr'),
      marked('results:bank-transactions', 'bank')].join('\n\n'));
    writeResultsSection(file, 'certificates', marked('certificates', 'new ocr costs $1 $&'));
    writeResultsSection(file, 'results:revenue-expense-feed',
      marked('results:revenue-expense-feed', 'feed'));
    const written = readFileSync(file, 'utf8');
    expect(written).toBe([marked('history', 'history'),
      marked('certificates', 'new ocr costs $1 $&'), marked('results:bank-transactions', 'bank'),
      marked('results:revenue-expense-feed', 'feed')].join('\n\n') + '\n');
  });
});
