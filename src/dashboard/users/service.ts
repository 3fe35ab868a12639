import { newId } from '../../domain/ids.ts';
import type { Db } from '../../platform/db/connect.ts';
import type { AccountsService } from '../../platform/accounts/service.ts';
import type { Locale } from '../i18n/index.ts';
import type { Role } from '../roles.ts';
import {
  decoyPasswordHash,
  generatePassword,
  hashPassword,
  passwordProblem,
  verifyPassword,
} from './password.ts';
import * as store from './store.ts';

// The people who sign in to the dashboard (docs/dashboard.md § Users and roles): each belongs to
// one account with one role. The CLI (`etax user …`) and the dashboard's pages both come here.

export type DashboardUser = {
  userId: string;
  accountId: string;
  email: string;
  role: Role;
  operator: boolean;
  locale: Locale;
  createdAt: Date;
  // A TOTP second factor is on.
  twoFactor: boolean;
};

export class UserInputError extends Error {
  constructor(readonly problem: 'emailInvalid' | 'emailTaken' | 'passwordTooShort' |
    'passwordTooLong' | 'userNotFound', message: string) {
    super(message);
  }
}

const EMAIL_LENGTH_MAX = 254;
const EMAIL_PATTERN = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

export function normalizeEmail(raw: string): string | null {
  const email = raw.trim();
  return email.length <= EMAIL_LENGTH_MAX && EMAIL_PATTERN.test(email) ? email : null;
}

function toUser(row: store.UserRow): DashboardUser {
  return { userId: row.id, accountId: row.accountId, email: row.email, role: row.role as Role,
    operator: row.operator, locale: row.locale as Locale, createdAt: row.createdAt,
    twoFactor: row.totpSecret !== null };
}

export function checkPassword(password: string) {
  const problem = passwordProblem(password);
  if (problem === 'tooShort') {
    throw new UserInputError('passwordTooShort', 'the password is too short');
  }
  if (problem === 'tooLong') {
    throw new UserInputError('passwordTooLong', 'the password is too long');
  }
}

type Deps = { db: Db; accounts: Pick<AccountsService, 'requireAccount'> };

export function createUsersService({ db, accounts }: Deps) {
  // Creates a user of an existing account; without `password`, one is generated and returned
  // (the only time it is ever readable).
  async function createUser(input: { accountId: string; email: string; role: Role;
    operator?: boolean; password?: string }): Promise<{ user: DashboardUser; password: string }> {
    const email = normalizeEmail(input.email);
    if (email === null) throw new UserInputError('emailInvalid', 'not an email address');
    await accounts.requireAccount(input.accountId);
    const password = input.password ?? generatePassword();
    checkPassword(password);
    const row = await store.insertUser(db, { id: newId('dashboardUser'),
      accountId: input.accountId, email, passwordHash: await hashPassword(password),
      role: input.role, operator: input.operator ?? false });
    if (row === null) throw new UserInputError('emailTaken', `${email} already has a user`);
    return { user: toUser(row), password };
  }

  // The user whose email and password these are, or null. An unknown email costs the same
  // hashing as a known one, so the answer's timing does not tell them apart.
  async function authenticate(email: string, password: string): Promise<DashboardUser | null> {
    if (password.length === 0 || passwordProblem(password) === 'tooLong') return null;
    const row = await store.findUserByEmail(db, email.trim());
    const matches = await verifyPassword(password, row?.passwordHash ?? await decoyPasswordHash());
    return row !== null && matches ? toUser(row) : null;
  }

  async function findUser(userId: string): Promise<DashboardUser | null> {
    const row = await store.findUser(db, userId);
    return row === null ? null : toUser(row);
  }

  async function findUserByEmail(email: string): Promise<DashboardUser | null> {
    const row = await store.findUserByEmail(db, email.trim());
    return row === null ? null : toUser(row);
  }

  async function listUsers(accountId?: string): Promise<DashboardUser[]> {
    return (await store.listUsers(db, accountId)).map(toUser);
  }

  // Sets a new password (generated when none is given) and returns it. The caller ends the
  // user's sessions.
  async function setPassword(userId: string, password: string = generatePassword()) {
    checkPassword(password);
    const row = await store.updatePasswordHash(db, userId, await hashPassword(password));
    if (row === null) throw new UserInputError('userNotFound', `no user ${userId}`);
    return password;
  }

  // Changes the password of a signed-in user who typed the current one; false when it was wrong.
  async function changePassword(userId: string, current: string, next: string) {
    checkPassword(next);
    const row = await store.findUser(db, userId);
    if (row === null || !(await verifyPassword(current, row.passwordHash))) return false;
    await store.updatePasswordHash(db, userId, await hashPassword(next));
    return true;
  }

  // Whether `password` is the user's: asked again before turning a second factor off.
  async function passwordMatches(userId: string, password: string) {
    if (password.length === 0 || passwordProblem(password) === 'tooLong') return false;
    const row = await store.findUser(db, userId);
    return row !== null && verifyPassword(password, row.passwordHash);
  }

  async function setLocale(userId: string, locale: Locale) {
    await store.updateLocale(db, userId, locale);
  }

  // A member of the account by id; null for a user of another account, as for none.
  async function findMember(accountId: string, userId: string): Promise<DashboardUser | null> {
    const row = await store.findUser(db, userId);
    return row === null || row.accountId !== accountId ? null : toUser(row);
  }

  async function changeRole(accountId: string, userId: string, role: Role) {
    const row = await store.updateRole(db, accountId, userId, role);
    return row === null ? null : toUser(row);
  }

  const removeUser = (accountId: string, userId: string) =>
    store.deleteUser(db, accountId, userId);

  return { createUser, authenticate, findUser, findUserByEmail, listUsers, setPassword,
    changePassword, passwordMatches, setLocale, findMember, changeRole, removeUser };
}

export type UsersService = ReturnType<typeof createUsersService>;
