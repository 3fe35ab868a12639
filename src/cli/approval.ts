import { createApprovalSettings } from '../areas/drafts/index.ts';
import type { Config } from '../config.ts';
import { withPlatform } from './admin.ts';
import { printResult } from './output.ts';

// `etax account approval`: whether an account's drafts need an approver before they are issued
// (docs/drafts.md § Approval), read or set by the operator through the same setting as the
// dashboard's drafts page. Who changed it last is recorded as `cli`.

export const CLI_ACTOR = 'cli';

export async function approval(config: Config,
  options: { account: string; require?: boolean; json?: boolean }) {
  const approvalRequired = await withPlatform(config, async (platform) => {
    await platform.accounts.requireAccount(options.account);
    const settings = createApprovalSettings({ db: platform.database.db,
      now: platform.outside.now });
    if (options.require !== undefined) {
      await settings.setApprovalRequired({ accountId: options.account,
        approvalRequired: options.require, actor: CLI_ACTOR });
    }
    return settings.approvalRequired(options.account);
  });
  printResult(Boolean(options.json), { accountId: options.account, approvalRequired },
    `account ${options.account}: ${approvalRequired
      ? 'drafts are issued once an approver approves them'
      : 'drafts are issued without approval'}`);
}
