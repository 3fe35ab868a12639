import assert from 'node:assert/strict';
import { newId } from '../../domain/ids.ts';
import type { Db, Executor } from '../db/connect.ts';
import type { PointsService } from '../points/service.ts';
import {
  ENVIRONMENTS,
  generateApiKey,
  hashApiKey,
  looksLikeApiKey,
  redactApiKey,
  type Environment,
  type Plan,
} from './keys.ts';
import type { Scope } from '../scope-types.ts';
import * as store from './store.ts';

// The longest label a key may carry.
export const API_KEY_LABEL_LENGTH_MAX = 100;
// Account names are shown in the dashboard and logs; 200 characters is plenty for a company (the
// table's check says the same).
export const ACCOUNT_NAME_LENGTH_MAX = 200;

export type CreatedAccount = {
  accountId: string;
  plan: Plan;
  keys: Record<Environment, string>;
};

export type AuthenticatedKey = {
  keyId: string;
  accountId: string;
  environment: Environment;
  plan: Plan;
};

export class AccountNotFoundError extends Error {}

type AccountsServiceOptions = { db: Db; points: PointsService; testSignupPoints: number;
  now: () => Date };

// The newest accounts, for the operator's pages.
async function listAccounts(db: Executor, limit: number) {
  const rows = await store.listAccounts(db, limit);
  return rows.map((row) => ({ accountId: row.id, name: row.name, plan: row.plan as Plan,
    createdAt: row.createdAt }));
}

export function createAccountsService(
  { db, points, testSignupPoints, now }: AccountsServiceOptions,
) {
  async function issueKey(tx: Executor, accountId: string, environment: Environment,
    label: string | null = null) {
    const key = generateApiKey(environment);
    const inserted = await store.insertApiKey(tx, {
      id: newId('apiKey'),
      accountId,
      environment,
      keyHash: hashApiKey(key),
      redacted: redactApiKey(key),
      label,
    });
    assert(inserted !== null);
    return { key, keyId: inserted.id };
  }

  // Creates the account, one key per environment and both balances; the test balance starts
  // with `testSignupPoints` so the sandbox works at once. Keys are returned once, here.
  async function createAccount(input: { name: string; plan: Plan }): Promise<CreatedAccount> {
    return db.transaction(async (tx) => {
      const accountId = newId('account');
      await store.insertAccount(tx, { id: accountId, name: input.name, plan: input.plan });
      await points.ensureBalances(accountId, tx);
      if (testSignupPoints > 0) {
        const memo = 'sign-up test points';
        await points.grant({ accountId, environment: 'test', points: testSignupPoints, memo }, tx);
      }
      const test = await issueKey(tx, accountId, 'test');
      const live = await issueKey(tx, accountId, 'live');
      return { accountId, plan: input.plan, keys: { test: test.key, live: live.key } };
    });
  }

  // The one way a key is made after the account's first two, for the CLI and the dashboard
  // alike. `label` is what the account calls it (API_KEY_LABEL_LENGTH_MAX characters at most).
  async function createKey(input: { accountId: string; environment: Environment;
    label?: string | null }): Promise<{ key: string; keyId: string }> {
    const account = await store.findAccount(db, input.accountId);
    if (!account) throw new AccountNotFoundError(`No account ${input.accountId}`);
    const label = input.label ?? null;
    assert(label === null || (label.length > 0 && label.length <= API_KEY_LABEL_LENGTH_MAX));
    return issueKey(db, input.accountId, input.environment, label);
  }

  // The keys of one account's environment, newest first, revoked ones included.
  async function listKeys(scope: Scope) {
    return store.listKeys(db, scope);
  }

  // Revokes a key of the scope by id; false when the scope has no such active key. The caller
  // drops it from its process's key cache (KeyCache.forgetKeyId).
  async function revokeKeyById(scope: Scope, keyId: string): Promise<boolean> {
    return (await store.revokeKeyById(db, scope, keyId, now())) !== null;
  }

  // Returns false when the key was unknown or already revoked.
  async function revokeKey(key: string): Promise<boolean> {
    if (!looksLikeApiKey(key)) return false;
    return (await store.revokeKeyByHash(db, hashApiKey(key), now())) !== null;
  }

  async function findActiveKey(keyHash: string): Promise<AuthenticatedKey | null> {
    const row = await store.findActiveKeyByHash(db, keyHash);
    if (!row) return null;
    assert((ENVIRONMENTS as readonly string[]).includes(row.environment));
    // Not awaited: the request does not wait for a bookkeeping write, and a failed one only
    // leaves "last used" older.
    store.touchLastUsed(db, row.keyId).catch(() => {});
    return row as AuthenticatedKey;
  }

  async function requireAccount(accountId: string) {
    const account = await store.findAccount(db, accountId);
    if (!account) throw new AccountNotFoundError(`No account ${accountId}`);
    return account;
  }

  // Changes the account's plan (docs/plans.md). Processes that cached its keys see the new plan
  // once their cache entries expire (AUTH_CACHE_TTL_MS).
  async function changePlan(accountId: string, plan: Plan) {
    const row = await store.updatePlan(db, accountId, plan);
    if (!row) throw new AccountNotFoundError(`No account ${accountId}`);
    return { accountId, plan };
  }

  return { createAccount, createKey, listKeys, revokeKey, revokeKeyById, findActiveKey,
    requireAccount, changePlan, listAccounts: (limit: number) => listAccounts(db, limit) };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
