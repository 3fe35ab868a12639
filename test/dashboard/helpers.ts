import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { createUsersService } from '../../src/dashboard/users/service.ts';
import type { Role } from '../../src/dashboard/roles.ts';
import type { TestApp } from '../helpers/app.ts';
import { multipartBody } from '../api/issuers/helpers.ts';

// Driving the dashboard as a browser does: cookies kept between requests, forms posted with
// the page's CSRF token and this server's Origin.

export const ORIGIN = 'http://localhost:80';
export const PASSWORD = 'correct horse battery';

export type Browser = {
  cookies: Map<string, string>;
  get(url: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  // Posts a form; `_csrf` is taken from the last page read unless the form gives one.
  post(url: string, form: Record<string, string>, headers?: Record<string, string>):
    Promise<LightMyRequestResponse>;
  // Posts a multipart form (a file upload), the CSRF token of the last page read first.
  postMultipart(url: string, parts: Array<{ name: string; filename?: string;
    content: Buffer | string }>): Promise<LightMyRequestResponse>;
  csrf: string | null;
};

let browsers = 0;

// Each browser comes from an address of its own, as people do, so the per-address sign-in
// limit of one test does not reach the next.
export function newBrowser(app: TestApp): Browser {
  const cookies = new Map<string, string>();
  browsers += 1;
  const remoteAddress = `10.${(browsers >> 16) & 255}.${(browsers >> 8) & 255}.${browsers & 255}`;
  const browser: Browser = {
    cookies,
    csrf: null,
    async get(url, headers = {}) {
      return remember(await app.server.inject(request('GET', url, headers)));
    },
    async post(url, form, headers = {}) {
      const body = new URLSearchParams({ ...(browser.csrf === null ? {} : { _csrf: browser.csrf }),
        ...form });
      return remember(await app.server.inject({ ...request('POST', url, { origin: ORIGIN,
        'content-type': 'application/x-www-form-urlencoded', ...headers }),
      payload: body.toString() }));
    },
    async postMultipart(url, parts) {
      const form = multipartBody([
        ...(browser.csrf === null ? [] : [{ name: '_csrf', content: browser.csrf }]), ...parts]);
      return remember(await app.server.inject({ ...request('POST', url, { origin: ORIGIN,
        ...form.headers }), payload: form.payload }));
    },
  };
  function request(method: 'GET' | 'POST', url: string, headers: Record<string, string>):
    InjectOptions {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return { method, url, remoteAddress, headers: { host: 'localhost:80',
      ...(cookie ? { cookie } : {}), ...headers } };
  }
  function remember(response: LightMyRequestResponse) {
    for (const set of response.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (set.value === '' || set.maxAge === 0) cookies.delete(set.name);
      else cookies.set(set.name, set.value);
    }
    const token = /name="_csrf" value="([^"]+)"/.exec(response.body)?.[1];
    if (token !== undefined) browser.csrf = token;
    return response;
  }
  return browser;
}

export function usersOf(app: TestApp) {
  return createUsersService({ db: app.platform.database.db, accounts: app.platform.accounts });
}

let emails = 0;
export async function createUser(app: TestApp, accountId: string, role: Role,
  email = `user${++emails}-${Date.now()}@example.com`) {
  const { user } = await usersOf(app).createUser({ accountId, email, role, password: PASSWORD });
  return user;
}

export async function signIn(app: TestApp, email: string, password = PASSWORD) {
  const browser = newBrowser(app);
  await browser.get('/dashboard/sign-in');
  const response = await browser.post('/dashboard/sign-in', { email, password });
  expect(response.statusCode, response.body).toBe(303);
  // As a browser lands on a page after the sign-in, and takes its form token from it.
  expect((await browser.get('/dashboard')).statusCode).toBe(200);
  return browser;
}

// An account with a signed-in user of `role`.
export async function signedInAccount(app: TestApp, role: Role = 'owner') {
  const account = await app.createAccount();
  const user = await createUser(app, account.accountId, role);
  const browser = await signIn(app, user.email);
  return { ...account, user, browser };
}
