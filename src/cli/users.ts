import { createInterface } from 'node:readline';
import type { Config } from '../config.ts';
import { recordAudit } from '../dashboard/audit/store.ts';
import { ROLES, type Role } from '../dashboard/roles.ts';
import { disable as disableSecondFactor } from '../dashboard/two-factor/store.ts';
import { createSessionsService } from '../dashboard/sessions/service.ts';
import { createUsersService, UserInputError } from '../dashboard/users/service.ts';
import type { Platform } from '../platform/platform.ts';
import { withPlatform } from './admin.ts';
import { CliError, parseChoice, printResult } from './output.ts';

// `etax user …`: the people who sign in to the dashboard (docs/dashboard.md § Users and roles). A
// password is generated and printed once unless --password-stdin reads one.

function services(platform: Platform) {
  const { db } = platform.database;
  return { users: createUsersService({ db, accounts: platform.accounts }),
    sessions: createSessionsService({ db, now: platform.outside.now }) };
}

async function readPasswordFromStdin(): Promise<string> {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    lines.close();
    return line;
  }
  throw new CliError('--password-stdin: standard input ended before a password');
}

type UserServices = ReturnType<typeof services>;

async function withUsers<T>(config: Config,
  work: (services: UserServices, platform: Platform) => Promise<T>): Promise<T> {
  try {
    return await withPlatform(config, (platform) => work(services(platform), platform));
  } catch (error) {
    if (error instanceof UserInputError) throw new CliError(error.message);
    throw error;
  }
}

type CreateOptions = { account: string; email: string; role: string; operator?: boolean;
  passwordStdin?: boolean; json?: boolean };

export async function createUser(config: Config, options: CreateOptions) {
  const role = parseChoice('--role', options.role, ROLES) as Role;
  const typed = options.passwordStdin ? await readPasswordFromStdin() : undefined;
  const { user, password } = await withUsers(config, async ({ users }, platform) => {
    const created = await users.createUser({ accountId: options.account, email: options.email,
      role, operator: Boolean(options.operator), password: typed });
    await recordAudit(platform.database.db, { accountId: created.user.accountId, actor: null,
      action: 'user.created', target: created.user.email });
    return created;
  });
  const shown = typed === undefined ? { password } : {};
  printResult(Boolean(options.json), { userId: user.userId, accountId: user.accountId,
    email: user.email, role: user.role, operator: user.operator, ...shown }, [
    `user ${user.userId} (${user.email}, ${user.role}${user.operator ? ', operator' : ''}) ` +
      `of account ${user.accountId}`,
    ...(typed === undefined ? [`password: ${password}`, 'The password is shown this once.'] : []),
  ].join('\n'));
}

export async function listUsers(config: Config, options: { account?: string; json?: boolean }) {
  const users = await withUsers(config, ({ users: service }) =>
    service.listUsers(options.account));
  const rows = users.map((user) => ({ userId: user.userId, accountId: user.accountId,
    email: user.email, role: user.role, operator: user.operator,
    createdAt: user.createdAt.toISOString() }));
  printResult(Boolean(options.json), { users: rows }, rows.length === 0 ? 'no users'
    : rows.map((row) => `${row.userId}  ${row.accountId}  ${row.role.padEnd(9)}  ` +
      `${row.operator ? 'operator  ' : ''}${row.email}`).join('\n'));
}

// A new password for a user who lost theirs; every session of theirs ends. The second factor
// stays unless --clear-second-factor says otherwise (docs/dashboard.md § Getting in): a password
// alone must not undo it, but a user locked out of both needs the operator to clear it too.
export async function resetPassword(config: Config, options: { email: string;
  passwordStdin?: boolean; clearSecondFactor?: boolean; json?: boolean }) {
  const typed = options.passwordStdin ? await readPasswordFromStdin() : undefined;
  const result = await withUsers(config, async ({ users, sessions }, platform) => {
    const { db } = platform.database;
    const user = await users.findUserByEmail(options.email);
    if (user === null) throw new CliError(`no user has the email ${options.email}`);
    const password = await users.setPassword(user.userId, typed);
    const secondFactorCleared = options.clearSecondFactor === true &&
      await disableSecondFactor(db, user.userId);
    await sessions.endAll(user.userId);
    await recordAudit(db, { accountId: user.accountId, actor: null,
      action: 'user.passwordReset', target: user.email });
    if (secondFactorCleared) {
      await recordAudit(db, { accountId: user.accountId, actor: null,
        action: 'user.twoFactorReset', target: user.email });
    }
    return { user, password, secondFactorCleared };
  });
  const shown = typed === undefined ? { password: result.password } : {};
  const factor = result.secondFactorCleared ? 'their second factor is off; '
    : result.user.twoFactor ? 'their second factor stays on; ' : '';
  printResult(Boolean(options.json), { userId: result.user.userId,
    secondFactorCleared: result.secondFactorCleared, ...shown }, [
    `password of ${result.user.email} reset; ${factor}their sessions ended`,
    ...(typed === undefined ? [`password: ${result.password}`,
      'The password is shown this once.'] : []),
  ].join('\n'));
}
