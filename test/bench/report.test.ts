import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  formatSection,
  writeResults,
  type RunFigures,
  type ScenarioResult,
} from '../../bench/report.ts';
import type { SteadyRateFigures } from '../../bench/open-loop.ts';
import type { Scenario } from '../../bench/scenarios.ts';
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

// The PostgreSQL section of these results, from one 1-second run each.
const sectionOf = (results: ScenarioResult[]) => formatSection({ mode: 'postgres', skipped: [],
  profileCount: null, analysedAfterWarmUp: false,
  options: { keys: 1, connections: 50, pipelining: 1, warmup: 0, runs: 1,
    duration: 1, workerProcesses: 0 }, results }, 0);

describe('judging a goal of a rate and a latency together', () => {
  const scenario: Scenario = { name: 'POST /accept', requestsPerSecondMin: 1_000,
    steadyRatePerSecond: 1_000, p99MsMax: 100, operations: [], buildRequests: () => [] };
  const closedLoop: RunFigures = { requestsPerSecond: 1_200, serverCpuMicrosecondsPerRequest: 500,
    p50Ms: 35, p97_5Ms: 110, p99Ms: 130, non2xxCount: 0, errorCount: 0, timeoutCount: 0 };
  const steady = (p99Ms: number): SteadyRateFigures => ({ offeredPerSecond: 1_000,
    answeredPerSecond: 998, p50Ms: 9, p97_5Ms: p99Ms - 10, p99Ms, maxMs: p99Ms + 20,
    non2xxCount: 0, errorCount: 0 });
  const section = (steadyP99Ms: number) => sectionOf([{ scenario, median: closedLoop,
    runs: [closedLoop], steady: { median: steady(steadyP99Ms), runs: [steady(steadyP99Ms)] } }]);

  it('judges the throughput on the autocannon runs and the latency at the steady rate', () => {
    const met = section(80);
    expect(met).toContain('- POST /accept: p99 at a steady 1000 req/s 80 ms (goal ≤ 100 ms): met.');
    expect(met).toContain('- POST /accept: 1200 req/s with every connection kept busy ' +
      '(goal ≥ 1000): met.');
    expect(met).toContain('| POST /accept | 1000 | 998 | 9 | 70 | 80 | 100 | 80 |');
    expect(section(180)).toContain('p99 at a steady 1000 req/s 180 ms (goal ≤ 100 ms): ' +
      '**NOT met**.');
  });

  it('judges no latency goal on runs at another rate than the goal\'s', () => {
    const other = { ...steady(60), offeredPerSecond: 300 };
    const text = sectionOf([{ scenario, median: closedLoop, runs: [closedLoop],
      steady: { median: other, runs: [other] } }]);
    expect(text).toContain('- POST /accept: p99 at a steady 300 req/s 60 ms (goal ≤ 100 ms at ' +
      '1000 req/s): not judged at this rate.');
    expect(text).not.toContain('(goal ≤ 100 ms): met.');
  });

  it('does not judge the latency on the autocannon runs when the steady rate was not reached',
    () => {
      const slow = { ...closedLoop, requestsPerSecond: 120, p99Ms: 1_400 };
      const text = sectionOf([{ scenario, median: slow, runs: [slow] }]);
      expect(text).toContain('- POST /accept: latency at its steady rate not measured, since it ' +
        'answered only 120 req/s with every connection kept busy: **NOT met**.');
      expect(text).not.toContain('p99 1400 ms');
      expect(text).toContain('- POST /accept: 120 req/s (goal ≥ 1000): **NOT met**.');
    });

  it('makes a run with failed answers at the steady rate invalid', () => {
    const failing = { ...steady(50), non2xxCount: 3 };
    const text = sectionOf([{ scenario, median: closedLoop, runs: [closedLoop],
      steady: { median: failing, runs: [failing] } }]);
    expect(text).toContain('**INVALID: POST /accept had 3 non-2xx responses');
  });
});

describe('judging whether the workers keep up', () => {
  const scenario: Scenario = { name: 'POST /accept', requestsPerSecondMin: 1_000,
    backlogSecondsMax: 2, makesDocuments: 'cashReceipts', operations: [],
    buildRequests: () => [] };
  const closedLoop: RunFigures = { requestsPerSecond: 1_300, serverCpuMicrosecondsPerRequest: 500,
    p50Ms: 35, p97_5Ms: 60, p99Ms: 80, non2xxCount: 0, errorCount: 0, timeoutCount: 0 };
  const section = (processing: { signedPerSecond: number; pendingAtEnd: number;
    unfinishedAtEnd: number },
    subject: Scenario = scenario) => sectionOf([{ scenario: subject, median: closedLoop,
    runs: [closedLoop],
    processing: { acceptedPerSecond: 1_300, transmittedPerSecond: 1_250, ...processing },
    costs: { documents: 13_000, rowWritesPerDocument: 17.25, cpuMsPerDocument: 1.234,
      databaseCpuMsPerDocument: null, loadGeneratorCpuMsPerDocument: 0.2 } }]);

  it('meets the goal with a backlog of at most its seconds of what was accepted', () => {
    expect(section({ signedPerSecond: 1_280, pendingAtEnd: 1_000, unfinishedAtEnd: 2_600 }))
      .toContain('- POST /accept: during the autocannon runs 1300 documents/s were accepted; the ' +
      'same process\'s workers approved 1280 and transmitted 1250 documents/s; when the last run ' +
      'ended 1000 were waiting to be approved and 2600 had not been transmitted yet (goal: the ' +
      'workers keep up, at most 2 s of what was accepted left unfinished, 2600): met.\n' +
      '- POST /accept: each of the 13000 documents cost, ' +
      'from its request to the end of its processing, 17.3 row writes in PostgreSQL and 1.23 ms ' +
      'of etax CPU time.');
  });

  it('adds what PostgreSQL and the load generator spent, and the rate the cores allow at that',
    () => {
      const text = sectionOf([{ scenario, median: closedLoop, runs: [closedLoop],
        costs: { documents: 13_000, rowWritesPerDocument: 17.25, cpuMsPerDocument: 1.5,
          databaseCpuMsPerDocument: 2, loadGeneratorCpuMsPerDocument: 0.5 } }]);
      const cores = os.availableParallelism();
      expect(text).toContain('17.3 row writes in PostgreSQL and 1.50 ms of etax CPU time, ' +
        '2.00 ms of PostgreSQL\'s and 0.50 ms of the load generator\'s; 4.00 ms in all, so ' +
        `${cores} cores take at most ${cores * 250} documents/s at these costs.`);
    });

  it('fails it when the backlog grew beyond that, however fast the requests were answered',
    () => {
      const text = section({ signedPerSecond: 151, pendingAtEnd: 46_964,
        unfinishedAtEnd: 47_000 });
      expect(text).toContain('46964 were waiting to be approved and 47000 had not been ' +
        'transmitted yet (goal: the workers keep up, at most 2 s of what was accepted left ' +
        'unfinished, 2600): **NOT met**.');
      expect(text).toContain('- POST /accept: 1300 req/s (goal ≥ 1000): met.');
    });

  it('fails it when signing keeps up but transmission falls behind', () => {
    const text = section({ signedPerSecond: 1_300, pendingAtEnd: 0, unfinishedAtEnd: 4_000 });
    expect(text).toContain('0 were waiting to be approved and 4000 had not been transmitted ' +
      'yet (goal: the workers keep up, at most 2 s of what was accepted left unfinished, 2600): ' +
      '**NOT met**.');
  });

  it('reports the backlog without a verdict for a scenario without the goal', () => {
    const text = section({ signedPerSecond: 151, pendingAtEnd: 46_964, unfinishedAtEnd: 47_000 },
      { ...scenario, backlogSecondsMax: undefined });
    expect(text).toContain('when the last run ended 46964 were waiting to be approved and 47000 ' +
      'had not been transmitted yet.');
    expect(text).not.toContain('keep up');
  });
});
