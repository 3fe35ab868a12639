// The `etax` account, key and points commands, tested black-box: every test spawns
// `node bin/etax.js …` exactly as an operator would and checks the exit status, stdout and
// stderr, against a database of the current mode (embedded PGlite, or PostgreSQL when
// DATABASE_URL is set). `etax serve` has its own file (test/cli/serve.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEtax as runCli, runEtaxJson as runJson, type CliSettings } from '../helpers/cli.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { grantArgs, keyArgs, showArgs } from '../helpers/cli-arguments.ts';

const KEY_PATTERN = (environment: 'test' | 'live') =>
  new RegExp(`^${environment}_[A-Za-z0-9_-]{43}$`);
const ACCOUNT_ID_PATTERN = /^acc_[A-Za-z0-9_-]+$/;

describe('account, key and points commands', () => {
  let database: TestDatabase;
  let env: CliSettings;
  let created: Record<string, unknown>;
  let accountId: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...database.env };
    created = await runJson(env, ['account', 'create', '--name', 'X', '--plan', 'STANDARD']);
    accountId = String(created.accountId);
  });
  afterAll(async () => {
    await database?.drop();
  });

  describe('happy', () => {
    it('account create --json prints exactly the account id, plan and one key per env', () => {
      expect(Object.keys(created).sort()).toEqual(['accountId', 'keys', 'plan']);
      expect(created.accountId).toMatch(ACCOUNT_ID_PATTERN);
      expect(created.plan).toBe('STANDARD');
      const keys = created.keys as Record<string, string>;
      expect(Object.keys(keys).sort()).toEqual(['live', 'test']);
      expect(keys.test).toMatch(KEY_PATTERN('test'));
      expect(keys.live).toMatch(KEY_PATTERN('live'));
    });

    it('account list --json lists accounts newest first, with their plan and no keys',
      async () => {
        const newer = await runJson(env, ['account', 'create', '--name', '새 계정 "quoted"']);
        const listed = await runJson(env, ['account', 'list']) as { accounts: Array<
          Record<string, unknown>> };
        const ids = listed.accounts.map((row) => row.accountId);
        expect(ids.indexOf(newer.accountId)).toBeLessThan(ids.indexOf(accountId));
        const row = listed.accounts.find((entry) => entry.accountId === accountId)!;
        expect(Object.keys(row).sort()).toEqual(['accountId', 'createdAt', 'name', 'plan']);
        expect(row).toMatchObject({ name: 'X', plan: 'STANDARD' });
        expect(Date.parse(String(row.createdAt))).not.toBeNaN();
        expect(JSON.stringify(listed)).not.toMatch(/(test|live)_[A-Za-z0-9_-]{43}/);
        const one = await runJson(env, ['account', 'list', '--limit', '1']) as {
          accounts: unknown[] };
        expect(one.accounts).toHaveLength(1);
        const text = await runCli(env, ['account', 'list', '--limit', '2']);
        expect(text.code).toBe(0);
        expect(text.stdout.trimEnd().split('\n')[0]).toMatch(
          new RegExp(`^${String(newer.accountId)}  FREE {6}\\S+Z  새 계정 "quoted"$`));
      });

    it('account create without --plan makes a FREE account', async () => {
      const account = await runJson(env, ['account', 'create', '--name', 'Y']);
      expect(account.plan).toBe('FREE');
    });

    it('key create --env live --json prints exactly a new live key', async () => {
      const printed = await runJson(env, keyArgs(accountId, 'live'));
      expect(Object.keys(printed)).toEqual(['key']);
      expect(printed.key).toMatch(KEY_PATTERN('live'));
      expect(printed.key).not.toBe((created.keys as Record<string, string>).live);
    });

    it('points show --json prints the test balance with the sign-up points', async () => {
      const printed = await runJson(env, showArgs(accountId, 'test'));
      expect(printed).toEqual({
        accountId, env: 'test', balance: 1_000_000, reserved: 0, available: 1_000_000,
      });
    });

    it('points grant --json adds to the live balance, which starts at 0', async () => {
      const args = ['points', 'grant', '--account', accountId, '--env', 'live', '--amount', '500'];
      const printed = await runJson(env, args);
      expect(printed).toEqual({
        accountId, env: 'live', balance: 500, reserved: 0, available: 500,
      });
      const shown = await runJson(env, showArgs(accountId, 'live'));
      expect(shown).toEqual(printed);
    });

    // The revoke tests revoke the keys account create printed, which no other test uses, so
    // that they spawn no process to make a key first.
    it('key revoke revokes a key once, and a second revoke fails', async () => {
      const key = (created.keys as Record<string, string>).test;
      const first = await runCli(env, ['key', 'revoke', '--key', String(key)]);
      expect(first).toEqual({ code: 0, stdout: 'key revoked\n', stderr: '' });
      const second = await runCli(env, ['key', 'revoke', '--key', String(key)]);
      expect(second.code).not.toBe(0);
      expect(second.stdout).toBe('');
      expect(second.stderr).toMatch(/no active key/);
    });

    it('key revoke --json prints {revoked: true}', async () => {
      const key = (created.keys as Record<string, string>).live;
      const printed = await runJson(env, ['key', 'revoke', '--key', String(key)]);
      expect(printed).toEqual({ revoked: true });
    });
  });

  // Arguments refused before a database is opened are tested once, in arguments.test.ts.
  describe('errors', () => {
    const badInputs: Array<[string, (id: string) => string[], RegExp]> = [
      ['an unknown account for grant', () => grantArgs('acc_unknown', 'live', '5'), /acc_unknown/],
      ['an unknown account for show', () => showArgs('acc_unknown', 'test'), /acc_unknown/],
      ['an unknown account for a key', () => keyArgs('acc_unknown', 'test'), /acc_unknown/],
      ['a malformed key to revoke', () => ['key', 'revoke', '--key', 'test_nope'], /no active key/],
      ['a limit of 0', () => ['account', 'list', '--limit', '0'], /--limit/],
      ['a limit above 1000', () => ['account', 'list', '--limit', '1001'], /--limit/],
      ['a limit that is not a number', () => ['account', 'list', '--limit', 'all'], /--limit/],
    ];

    it.each(badInputs)('exits 2 with a message on stderr and no stdout for %s', async (
      _name, args, message,
    ) => {
      const result = await runCli(env, [...args(accountId), '--json']);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(/^etax: /);
      expect(result.stderr).toMatch(message);
    });

    it('grants nothing when a grant is refused', async () => {
      await runCli(env, grantArgs(accountId, 'test', '-5'));
      const shown = await runJson(env, showArgs(accountId, 'test'));
      expect(shown.balance).toBe(1_000_000);
    });
  });
});

