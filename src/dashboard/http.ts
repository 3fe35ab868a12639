import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_ABSOLUTE_SECONDS } from './sessions/service.ts';

// The dashboard's cookies and its protection against cross-site requests (docs/dashboard.md §
// Sessions, § CSRF).
//
// Cookies are HttpOnly and SameSite=Lax. Over HTTPS (as the request says, after TRUST_PROXY)
// they are also Secure and carry the __Host- prefix, which binds them to this host and path /;
// over plain http://localhost neither is possible, so they go without.
//
// Every POST must come from this origin (Sec-Fetch-Site: same-origin, or else an Origin header
// naming this server) and carry the synchronizer token: an HMAC of the secret cookie value
// (the session's, or before sign-in the sign-in cookie's), which a page of another site can
// neither read nor compute.

const SESSION_COOKIE = 'etax_session';
const SIGN_IN_COOKIE = 'etax_signin';
const SIGN_IN_COOKIE_SECONDS = 60 * 60;
const CSRF_LABEL = 'etax dashboard csrf';
const COOKIE_VALUE_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const secure = (request: FastifyRequest) => request.protocol === 'https';
const cookieName = (request: FastifyRequest, name: string) =>
  (secure(request) ? `__Host-${name}` : name);

function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (header === undefined) return undefined;
  const value = parseCookie(header)[cookieName(request, name)];
  return value !== undefined && COOKIE_VALUE_PATTERN.test(value) ? value : undefined;
}

function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string,
  maxAgeSeconds: number) {
  reply.header('set-cookie', [...cookiesSet(reply), stringifySetCookie({
    name: cookieName(request, name), value, path: '/', httpOnly: true, sameSite: 'lax',
    secure: secure(request), maxAge: maxAgeSeconds })]);
}

function cookiesSet(reply: FastifyReply): string[] {
  const set = reply.getHeader('set-cookie');
  if (set === undefined) return [];
  return Array.isArray(set) ? set.map(String) : [String(set)];
}

export const readSessionCookie = (request: FastifyRequest) => readCookie(request, SESSION_COOKIE);

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string) {
  setCookie(request, reply, SESSION_COOKIE, token, SESSION_ABSOLUTE_SECONDS);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply) {
  setCookie(request, reply, SESSION_COOKIE, '', 0);
}

// The sign-in form's cookie: made when the form is shown, so its POST carries a token too.
export function signInCookie(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookie(request, SIGN_IN_COOKIE);
  if (existing !== undefined) return existing;
  const value = randomBytes(32).toString('base64url');
  setCookie(request, reply, SIGN_IN_COOKIE, value, SIGN_IN_COOKIE_SECONDS);
  return value;
}

export const readSignInCookie = (request: FastifyRequest) => readCookie(request, SIGN_IN_COOKIE);

export function csrfToken(secretCookieValue: string): string {
  return createHmac('sha256', secretCookieValue).update(CSRF_LABEL).digest('base64url');
}

export function csrfTokenMatches(secretCookieValue: string | undefined, sent: unknown): boolean {
  if (secretCookieValue === undefined || typeof sent !== 'string') return false;
  const expected = Buffer.from(csrfToken(secretCookieValue));
  const actual = Buffer.from(sent);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

// Whether an unsafe request came from a page of this server. Browsers send Sec-Fetch-Site on
// every request, and Origin on every POST; a request with neither is not from a browser page
// of ours and is refused as well.
export function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin';
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  return origin === `${request.protocol}://${request.host}`;
}

// The address a request came from, as TRUST_PROXY lets the server tell it.
export const clientAddress = (request: FastifyRequest) => request.ip;
