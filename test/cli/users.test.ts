// `etax user create|list|reset-password`, black-box against the database of a running app: a
// user made by the CLI signs in to the app's dashboard with the printed password; a reset ends
// their sessions and the new password works.
import { spawn } from 'node:child_process';
import { sql } from 'drizzle-orm';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { cliEnv, runEtax, runEtaxJson } from '../helpers/cli.ts';
import { signIn } from '../dashboard/helpers.ts';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/etax.js');

let app: TestApp;
let accountId: string;
beforeAll(async () => {
  app = await createTestApp();
  ({ accountId } = await app.createAccount());
});
afterAll(async () => {
  await app?.close();
});

const run = (args: string[]) => runEtax(app.database.env, args);

// `etax <args>` with `input` on its standard input.
function runWithInput(args: string[], input: string): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: cliEnv(app.database.env) });
    let stdout = '';
    child.stdout.on('data', (chunk) => { stdout += String(chunk); });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout }));
    child.stdin.end(input);
  });
}

describe('etax user', () => {
  it('creates an owner with a password printed once, which signs in', async () => {
    const email = `owner-${Date.now()}@example.com`;
    const created = await runEtaxJson(app.database.env,
      ['user', 'create', '--account', accountId, '--email', email, '--role', 'owner']);
    expect(created).toMatchObject({ accountId, email, role: 'owner', operator: false });
    expect(created.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const browser = await signIn(app, email, created.password as string);
    expect((await browser.get('/dashboard/settings')).body).toContain('Owner');
    const human = await run(['user', 'create', '--account', accountId, '--email',
      `dev-${Date.now()}@example.com`, '--role', 'developer', '--operator']);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/password: [A-Za-z0-9_-]{24}\nThe password is shown this once\./);
    expect(human.stdout).toContain('developer, operator');
  });

  it('reads a password from standard input and prints none', async () => {
    const email = `stdin-${Date.now()}@example.com`;
    const result = await runWithInput(['user', 'create', '--account', accountId, '--email', email,
      '--role', 'viewer', '--password-stdin', '--json'], 'a typed passphrase\n');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).not.toHaveProperty('password');
    await signIn(app, email, 'a typed passphrase');
  });

  it('refuses a taken email, an unknown role, an unknown account and a short password',
    async () => {
      const email = `taken-${Date.now()}@example.com`;
      expect((await run(['user', 'create', '--account', accountId, '--email', email, '--role',
        'admin'])).code).toBe(0);
      const cases = [
        [['--account', accountId, '--email', email.toUpperCase(), '--role', 'admin'],
          /already has a user/],
        [['--account', accountId, '--email', 'x@example.com', '--role', 'root'], /--role/],
        [['--account', 'acc_nope', '--email', 'y@example.com', '--role', 'owner'], /No account/],
        [['--account', accountId, '--email', 'not-an-email', '--role', 'owner'], /email/],
      ] as const;
      for (const [args, message] of cases) {
        const result = await run(['user', 'create', ...args]);
        expect(result.code).not.toBe(0);
        expect(result.stderr).toMatch(message);
      }
      const short = await runWithInput(['user', 'create', '--account', accountId, '--email',
        `short-${Date.now()}@example.com`, '--role', 'owner', '--password-stdin'], 'short\n');
      expect(short.code).not.toBe(0);
    });

  it('lists users, and resets a password, which ends their sessions', async () => {
    const email = `reset-${Date.now()}@example.com`;
    const created = await runEtaxJson(app.database.env,
      ['user', 'create', '--account', accountId, '--email', email, '--role', 'issuer']);
    const listed = await runEtaxJson(app.database.env, ['user', 'list', '--account', accountId]);
    expect((listed.users as Array<{ email: string }>).map((user) => user.email)).toContain(email);
    const browser = await signIn(app, email, created.password as string);
    const reset = await runEtaxJson(app.database.env, ['user', 'reset-password', '--email', email]);
    expect(reset.password).not.toBe(created.password);
    expect((await browser.get('/dashboard')).statusCode).toBe(303);
    await signIn(app, email, reset.password as string);
    const unknown = await run(['user', 'reset-password', '--email', 'nobody@example.com']);
    expect(unknown.code).not.toBe(0);
  });

  it('keeps the second factor on a reset unless --clear-second-factor clears it, audited',
    async () => {
      const email = `factor-${Date.now()}@example.com`;
      const created = await runEtaxJson(app.database.env,
        ['user', 'create', '--account', accountId, '--email', email, '--role', 'viewer']);
      const { db } = app.platform.database;
      // A second factor as Settings leaves it: a sealed secret and recovery codes' hashes.
      await db.execute(sql`update dashboard_users set totp_secret = 'sealed',
        recovery_code_hashes = array['a', 'b'] where id = ${created.userId as string}`);
      const factorOf = async () => (await db.execute(sql`select totp_secret,
        cardinality(recovery_code_hashes) as codes from dashboard_users
        where id = ${created.userId as string}`)).rows[0] as { totp_secret: string | null;
        codes: number };

      const kept = await run(['user', 'reset-password', '--email', email]);
      expect(kept.code).toBe(0);
      expect(kept.stdout).toContain('their second factor stays on');
      expect(await factorOf()).toEqual({ totp_secret: 'sealed', codes: 2 });

      const cleared = await runEtaxJson(app.database.env,
        ['user', 'reset-password', '--email', email, '--clear-second-factor']);
      expect(cleared.secondFactorCleared).toBe(true);
      expect(await factorOf()).toEqual({ totp_secret: null, codes: 0 });
      // With the factor off, the new password alone signs in.
      await signIn(app, email, cleared.password as string);
      const actions = (await db.execute(sql`select action from dashboard_audit_events
        where account_id = ${accountId} and target = ${email} order by sequence`)).rows
        .map((row) => (row as { action: string }).action);
      expect(actions).toEqual(['user.created', 'user.passwordReset', 'user.passwordReset',
        'user.twoFactorReset']);
    });
});
