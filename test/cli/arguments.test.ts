// The `etax` commands refuse bad arguments before they open a database: exit 2, a message on
// stderr that names the argument, and nothing on stdout. Each command runs black-box, as an
// operator would run it, with a DATA_DIR that does not exist; that it still does not exist
// afterwards shows no database was opened. No database is involved, so this file runs once,
// not per database mode, and its commands run at once. What needs a database to refuse (an
// unknown account, a key that is not active, a CSV header) is tested with it in cli.test.ts
// and profiles.test.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEtax } from '../helpers/cli.ts';
import { grantArgs, keyArgs, showArgs } from '../helpers/cli-arguments.ts';

// Never looked up: every command here stops before it reads an account.
const ACCOUNT_ID = 'acc_unchecked';

let folder: string;
let dataDir: string;

beforeAll(() => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'etxa-'));
  dataDir = path.join(folder, 'data');
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

// Runs the command, which must not create the data directory, and returns how it ended.
async function runRefused(args: string[]) {
  const result = await runEtax({ DATA_DIR: dataDir }, args);
  expect(existsSync(dataDir), 'the command opened a database').toBe(false);
  return result;
}

describe.concurrent('account, key and points commands', () => {
  const badInputs: Array<[string, string[], RegExp]> = [
    ['an unknown plan', ['account', 'create', '--name', 'X', '--plan', 'GOLD'], /--plan/],
    ['an empty account name', ['account', 'create', '--name', ' '], /--name/],
    ['a negative amount', grantArgs(ACCOUNT_ID, 'live', '-5'), /--amount/],
    ['a non-numeric amount', grantArgs(ACCOUNT_ID, 'live', 'abc'), /--amount/],
    ['a zero amount', grantArgs(ACCOUNT_ID, 'live', '0'), /--amount/],
    ['an unknown environment', grantArgs(ACCOUNT_ID, 'prod', '5'), /--env/],
    ['an unknown environment for show', showArgs(ACCOUNT_ID, 'prod'), /--env/],
    ['an unknown environment for a key', keyArgs(ACCOUNT_ID, 'prod'), /--env/],
  ];

  it.each(badInputs)('exits 2 with a message on stderr and no stdout for %s', async (
    _name, args, message,
  ) => {
    const result = await runRefused([...args, '--json']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^etax: /);
    expect(result.stderr).toMatch(message);
  });

  it('exits non-zero with usage on stderr when a required option is missing', async () => {
    const withoutAmount = ['points', 'grant', '--account', ACCOUNT_ID, '--env', 'test'];
    const result = await runRefused(withoutAmount);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/--amount/);
  });
});

describe.concurrent('etax mail outbox', () => {
  it.each([
    [['--limit', '0'], /--limit/],
    [['--limit', '1001'], /--limit must be at most 1000/],
    [['--limit', 'ten'], /--limit/],
    [['--status', 'LOST'], /--status must be one of PENDING, SENT, KEPT, FAILED/],
  ])('exits 2 with a message and no output for %j', async (args, message) => {
    const result = await runRefused(['mail', 'outbox', ...args]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^etax: /);
    expect(result.stderr).toMatch(message);
  });
});

describe.concurrent('etax import profiles', () => {
  it.each([
    ['a missing file', () => ['import', 'profiles', path.join(folder, 'nope.csv')], /cannot read/],
    ['an unknown extension', () => ['import', 'profiles', path.join(folder, 'x.txt')],
      /--format/],
    ['an unknown format', () => ['import', 'profiles', path.join(folder, 'p.csv'), '--format',
      'xml'], /--format/],
  ])('exits 2 with nothing on stdout for %s', async (_name, args, message) => {
    const result = await runRefused(args());
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});
