// `etax account approval`, black-box as an operator runs it: it shows the account's approval
// setting, sets it both ways (the same setting the dashboard's drafts page changes, which the
// drafts service reads), and refuses an unknown account.
import { describe, expect, it } from 'vitest';
import { runEtax, runEtaxJson, useCliAccount, type CliSettings } from '../helpers/cli.ts';

describe('etax account approval', () => {
  let env: CliSettings;
  let accountId: string;

  useCliAccount('승인', (made) => {
    ({ env, accountId } = made);
  });

  it('shows the setting, off until set, and sets it both ways', async () => {
    expect(await runEtaxJson(env, ['account', 'approval', '--account', accountId]))
      .toEqual({ accountId, approvalRequired: false });
    expect(await runEtaxJson(env, ['account', 'approval', '--account', accountId,
      '--require'])).toEqual({ accountId, approvalRequired: true });
    const shown = await runEtax(env, ['account', 'approval', '--account', accountId]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toBe(`account ${accountId}: drafts are issued once an approver ` +
      'approves them\n');
    expect(await runEtaxJson(env, ['account', 'approval', '--account', accountId,
      '--no-require'])).toEqual({ accountId, approvalRequired: false });
    expect(await runEtaxJson(env, ['account', 'approval', '--account', accountId]))
      .toEqual({ accountId, approvalRequired: false });
  }, 120_000);

  it('refuses an account that does not exist, changing nothing', async () => {
    const refused = await runEtax(env, ['account', 'approval', '--account', 'acc_nobody',
      '--require']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('No account acc_nobody');
    // The account that exists is unchanged.
    expect(await runEtaxJson(env, ['account', 'approval', '--account', accountId]))
      .toEqual({ accountId, approvalRequired: false });
  }, 60_000);
});
