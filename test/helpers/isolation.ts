import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import type { Environment } from '../../src/platform/accounts/keys.ts';
import { basicAuth, type TestApp } from './app.ts';

// Checks that each resource is visible to its owner's key alone: another
// account's keys and the owner's key of the other environment get 404 NOT_FOUND, never 403, for
// everything they try on it, its id appears in none of their lists, and the owner finds it
// unchanged afterwards. A resource type is one ResourceType entry; issuers and certificates add
// theirs the same way.

export type Principal = {
  name: string;
  key: string;
  accountId: string;
  environment: Environment;
};

export type ResourceType = {
  name: string;
  // Makes one resource owned by the principal and returns its id.
  create(app: TestApp, owner: Principal): Promise<string>;
  // What the owner sees of it; it must be the same before and after the strangers' attempts.
  read(app: TestApp, owner: Principal, id: string): Promise<unknown>;
  // Every request the stranger could make on the resource, without Authorization.
  attempts(id: string, stranger: Principal): InjectOptions[];
  // Lists the stranger can read, with the ids each response shows.
  listings(stranger: Principal): { url: string; ids(body: unknown): string[] }[];
};

export function authorized(request: InjectOptions, key: string): InjectOptions {
  const headers: Record<string, string> = { authorization: basicAuth(key) };
  if (request.payload !== undefined) headers['content-type'] = 'application/json';
  return { ...request, headers };
}

async function expectHiddenFrom(app: TestApp, type: ResourceType, id: string,
  stranger: Principal) {
  for (const attempt of type.attempts(id, stranger)) {
    const response = await app.server.inject(authorized(attempt, stranger.key));
    const what = `${stranger.name}: ${attempt.method} ${attempt.url}`;
    expect(response.statusCode, `${what} → ${response.body}`).toBe(404);
    expect(response.json(), what).toEqual({
      code: 'NOT_FOUND', message: expect.any(String), traceId: response.headers['trace-id'],
    });
  }
  for (const listing of type.listings(stranger)) {
    const response = await app.server.inject(authorized({ method: 'GET', url: listing.url },
      stranger.key));
    expect(response.statusCode, `${stranger.name}: GET ${listing.url}`).toBe(200);
    expect(listing.ids(response.json())).not.toContain(id);
  }
}

// Runs the whole check for one resource type and one owner against every other principal.
export async function expectIsolated(app: TestApp, type: ResourceType, owner: Principal,
  principals: Principal[]) {
  const id = await type.create(app, owner);
  const before = await type.read(app, owner, id);
  for (const stranger of principals.filter((principal) => principal !== owner)) {
    await expectHiddenFrom(app, type, id, stranger);
  }
  expect(await type.read(app, owner, id)).toEqual(before);
}
