import pino from 'pino';
import type { Config } from '../config.ts';
import { ENVIRONMENTS, PLANS, type Environment } from '../platform/accounts/keys.ts';
import { AccountNotFoundError, ACCOUNT_NAME_LENGTH_MAX, API_KEY_LABEL_LENGTH_MAX } from
  '../platform/accounts/service.ts';
import { systemOutside } from '../platform/outside.ts';
import { openPlatform, type Platform } from '../platform/platform.ts';
import { CliError, parseChoice, parsePositiveInteger, printResult } from './output.ts';

// Administrative CLI commands. Each opens the platform (database, migrations), does one thing
// and closes it. In embedded mode this reaches a running server's database through its socket.
// The platform without the areas and the HTTP server: a command starts in a fraction of the
// time the server takes (docs/operations.md § Start-up).

export async function withPlatform<T>(config: Config, work: (platform: Platform) => Promise<T>) {
  // Logs go to stderr so --json output on stdout stays machine-readable.
  const level = config.LOG_LEVEL === 'info' ? 'warn' : config.LOG_LEVEL;
  // The cast: config.ts's LOG_LEVEL union is built with map(), so its static type is never.
  const cliConfig = { ...config, LOG_LEVEL: level } as Config;
  const platform = await openPlatform(cliConfig,
    systemOutside({ logDestination: pino.destination(2) }), { embeddedHolder: 'command' });
  try {
    return await work(platform);
  } catch (error) {
    if (error instanceof AccountNotFoundError) throw new CliError(error.message);
    throw error;
  } finally {
    await platform.close();
  }
}

export async function migrate(config: Config) {
  await withPlatform(config, async () => {});
  process.stdout.write('migrations applied\n');
}

type AccountOptions = { name: string; plan: string; json?: boolean };

export async function createAccount(config: Config, options: AccountOptions) {
  const name = options.name.trim();
  if (name.length === 0 || name.length > ACCOUNT_NAME_LENGTH_MAX) {
    throw new CliError(`--name must be 1 to ${ACCOUNT_NAME_LENGTH_MAX} characters`);
  }
  const plan = parseChoice('--plan', options.plan, PLANS);
  const account = await withPlatform(config, (platform) =>
    platform.accounts.createAccount({ name, plan }));
  printResult(Boolean(options.json), account, [
    `account ${account.accountId} (${account.plan})`,
    `test key: ${account.keys.test}`,
    `live key: ${account.keys.live}`,
  ].join('\n'));
}

// The operator's view of who is on the server, newest first.
export const ACCOUNT_LIST_LIMIT_MAX = 1_000;

export async function listAccounts(config: Config, options: { limit: string; json?: boolean }) {
  const limit = parsePositiveInteger('--limit', options.limit);
  if (limit > ACCOUNT_LIST_LIMIT_MAX) {
    throw new CliError(`--limit must be at most ${ACCOUNT_LIST_LIMIT_MAX}`);
  }
  const accounts = await withPlatform(config, (platform) =>
    platform.accounts.listAccounts(limit));
  const rows = accounts.map((account) => ({ accountId: account.accountId, name: account.name,
    plan: account.plan, createdAt: account.createdAt.toISOString() }));
  printResult(Boolean(options.json), { accounts: rows }, rows.length === 0 ? 'no accounts'
    : rows.map((row) => `${row.accountId}  ${row.plan.padEnd(8)}  ${row.createdAt}  ` +
      `${row.name}`).join('\n'));
}

export async function changePlan(config: Config,
  options: { account: string; plan: string; json?: boolean }) {
  const plan = parseChoice('--plan', options.plan, PLANS);
  const changed = await withPlatform(config, (platform) =>
    platform.accounts.changePlan(options.account, plan));
  printResult(Boolean(options.json), changed, `account ${changed.accountId} is on ${plan}`);
}

type KeyOptions = { account: string; env: string; label?: string; json?: boolean };

export async function createKey(config: Config, options: KeyOptions) {
  const environment = parseChoice('--env', options.env, ENVIRONMENTS);
  const label = options.label === undefined ? null : options.label.trim();
  if (label !== null && (label.length === 0 || label.length > API_KEY_LABEL_LENGTH_MAX)) {
    throw new CliError(`--label must be 1 to ${API_KEY_LABEL_LENGTH_MAX} characters`);
  }
  const { key } = await withPlatform(config, (platform) =>
    platform.accounts.createKey({ accountId: options.account, environment, label }));
  printResult(Boolean(options.json), { key }, key);
}

export async function revokeKey(config: Config, options: { key: string; json?: boolean }) {
  const revoked = await withPlatform(config, (platform) =>
    platform.accounts.revokeKey(options.key));
  if (!revoked) throw new CliError('no active key matches');
  printResult(Boolean(options.json), { revoked: true }, 'key revoked');
}

type PointsOptions = { account: string; env: string; amount?: string; json?: boolean };

async function printBalance(
  platform: Platform,
  accountId: string,
  environment: Environment,
  json: boolean,
) {
  await platform.accounts.requireAccount(accountId);
  const balance = await platform.points.getBalance({ accountId, environment });
  printResult(json, { accountId, env: environment, ...balance },
    `${accountId} ${environment}: balance ${balance.balance}, reserved ${balance.reserved}, ` +
    `available ${balance.available}`);
}

export async function grantPoints(config: Config, options: PointsOptions) {
  const environment = parseChoice('--env', options.env, ENVIRONMENTS);
  const amount = parsePositiveInteger('--amount', options.amount ?? '');
  await withPlatform(config, async (platform) => {
    await platform.accounts.requireAccount(options.account);
    const accountId = options.account;
    await platform.points.grant({ accountId, environment, points: amount, memo: 'cli grant' });
    await printBalance(platform, options.account, environment, Boolean(options.json));
  });
}

export async function showPoints(config: Config, options: PointsOptions) {
  const environment = parseChoice('--env', options.env, ENVIRONMENTS);
  await withPlatform(config, (platform) =>
    printBalance(platform, options.account, environment, Boolean(options.json)));
}
