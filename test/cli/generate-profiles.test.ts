// `etax generate profiles`, tested black-box: every test spawns `node bin/etax.js …` as an
// operator would. The command opens no database, so this file runs once, not per database mode,
// and its tests run at once (each writes files of its own).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEtax as runCli } from '../helpers/cli.ts';

describe.concurrent('etax generate profiles', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'etxg-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('writes byte-identical output for the same seed, to stdout or to --out', async () => {
    const args = ['generate', 'profiles', '--count', '50', '--seed', 'abc'];
    const first = await runCli({}, args);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe('');
    // A header and one CRLF-terminated line per profile.
    expect(first.stdout.split('\r\n')).toHaveLength(52);
    // A second run with the same seed, writing to --out: the same bytes.
    const out = path.join(folder, 'p.csv');
    const second = await runCli({}, [...args, '--out', out]);
    expect(second).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(readFileSync(out, 'utf8')).toBe(first.stdout);
    const other = await runCli({}, ['generate', 'profiles', '--count', '50', '--seed', 'abd']);
    expect(other.stdout).not.toBe(first.stdout);
  });

  it('writes JSON Lines by --format or by the .jsonl extension', async () => {
    const byOption = await runCli({}, ['generate', 'profiles', '--count', '3', '--seed', '1',
      '--format', 'jsonl']);
    const lines = byOption.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(JSON.parse(line)).toHaveProperty('businessRegistrationNumber');
    const out = path.join(folder, 'p.jsonl');
    await runCli({}, ['generate', 'profiles', '--count', '3', '--seed', '1', '--out', out]);
    expect(readFileSync(out, 'utf8')).toBe(byOption.stdout);
  });

  it.each([
    ['a zero count', ['--count', '0', '--seed', '1'], /--count/],
    ['too large a count', ['--count', '10000001', '--seed', '1'], /--count must be at most/],
    ['an unknown format', ['--count', '1', '--seed', '1', '--format', 'xml'], /--format/],
  ])('exits 2 for %s', async (_name, args, message) => {
    const result = await runCli({}, ['generate', 'profiles', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
