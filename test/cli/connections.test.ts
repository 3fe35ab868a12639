// `etax account plan` and `etax connection add|list`, black-box: the commands an operator runs
// to change an account's plan and to connect its tax portal or bank account. The user id and
// password go in on stdin and never appear in the output.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { cliEnv, runEtaxJson, useCliAccount, type CliSettings } from '../helpers/cli.ts';

const CLI = path.resolve(import.meta.dirname, '../../bin/etax.js');
const SECRET = 'Cli-Portal-Secret-5b2a';

function runWithStdin(settings: CliSettings, args: string[], stdin: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(process.execPath, [CLI, ...args], { env: cliEnv(settings),
      timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout,
        stderr });
    });
    child.stdin!.end(stdin);
  });
}

describe('plan and connection commands', () => {
  let env: CliSettings;
  let accountId: string;

  useCliAccount('C', (made) => {
    ({ env, accountId } = made);
  });

  it('account plan changes the plan and refuses unknown plans and accounts', async () => {
    expect(await runEtaxJson(env, ['account', 'plan', '--account', accountId, '--plan',
      'STANDARD'])).toEqual({ accountId, plan: 'STANDARD' });
    const unknownPlan = await runWithStdin(env, ['account', 'plan', '--account', accountId,
      '--plan', 'GOLD'], '');
    expect(unknownPlan.code).toBe(2);
    const unknownAccount = await runWithStdin(env, ['account', 'plan', '--account', 'acc_none',
      '--plan', 'FREE'], '');
    expect(unknownAccount.code).toBe(2);
  });

  it('connection add refuses a test business the account does not issue for', async () => {
    const refused = await runWithStdin(env, ['connection', 'add', '--account', accountId,
      '--env', 'test', '--kind', 'HOMETAX', '--business-number', '123-45-67891', '--json'],
    `owner-id\n${SECRET}\n`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('SANDBOX_CONNECTION_NOT_ALLOWED');
    const listed = await runWithStdin(env, ['connection', 'list', '--account', accountId,
      '--env', 'test', '--json'], '');
    expect(JSON.parse(listed.stdout).items).toEqual([]);
  });

  it('connection add logs in with stdin credentials and list shows no secret', async () => {
    // A test key connects only a business its account issues for.
    const app = await createApp(loadConfig({ LOG_LEVEL: 'silent', REDIS_URL: undefined,
      ...env }));
    try {
      await app.issuers.createIssuer({ scope: { accountId, environment: 'test' },
        issuer: { identificationNumber: '1234567891', organizationName: '주식회사 이택스',
          representativeName: '홍길동' } });
    } finally {
      await app.close();
    }
    const added = await runWithStdin(env, ['connection', 'add', '--account', accountId, '--env',
      'test', '--kind', 'HOMETAX', '--business-number', '123-45-67891', '--json'],
    `owner-id\n${SECRET}\n`);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ kind: 'HOMETAX', state: 'CONNECTED',
      businessRegistrationNumber: '1234567891' });
    const failed = await runWithStdin(env, ['connection', 'add', '--account', accountId, '--env',
      'test', '--kind', 'HOMETAX', '--business-number', '1234567891'],
    'owner-id\nwrong-password\n');
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain('INVALID_CREDENTIALS');
    const listed = await runWithStdin(env, ['connection', 'list', '--account', accountId,
      '--env', 'test', '--json'], '');
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).items).toHaveLength(1);
    expect(added.stdout + listed.stdout + added.stderr).not.toContain(SECRET);
    const noSecret = await runWithStdin(env, ['connection', 'add', '--account', accountId,
      '--env', 'test', '--kind', 'BANK_ACCOUNT', '--bank-code', '004', '--account-number',
      '123456789012'], '');
    expect(noSecret.code).toBe(2);
  });
});
