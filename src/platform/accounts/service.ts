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
import * as store from './store.ts';

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

type AccountsServiceOptions = { db: Db; points: PointsService; testSignupPoints: number };

export function createAccountsService({ db, points, testSignupPoints }: AccountsServiceOptions) {
  async function issueKey(tx: Executor, accountId: string, environment: Environment) {
    const key = generateApiKey(environment);
    const inserted = await store.insertApiKey(tx, {
      id: newId('apiKey'),
      accountId,
      environment,
      keyHash: hashApiKey(key),
      redacted: redactApiKey(key),
    });
    assert(inserted !== null);
    return key;
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
      return { accountId, plan: input.plan, keys: { test, live } };
    });
  }

  async function createKey(input: { accountId: string; environment: Environment }) {
    const account = await store.findAccount(db, input.accountId);
    if (!account) throw new AccountNotFoundError(`No account ${input.accountId}`);
    return issueKey(db, input.accountId, input.environment);
  }

  // Returns false when the key was unknown or already revoked.
  async function revokeKey(key: string): Promise<boolean> {
    if (!looksLikeApiKey(key)) return false;
    return (await store.revokeKeyByHash(db, hashApiKey(key))) !== null;
  }

  async function findActiveKey(keyHash: string): Promise<AuthenticatedKey | null> {
    const row = await store.findActiveKeyByHash(db, keyHash);
    if (!row) return null;
    assert((ENVIRONMENTS as readonly string[]).includes(row.environment));
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

  return { createAccount, createKey, revokeKey, findActiveKey, requireAccount, changePlan };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
