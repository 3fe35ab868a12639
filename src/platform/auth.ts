import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { LRUCache } from 'lru-cache';
import type { AccountsService, AuthenticatedKey } from './accounts/service.ts';
import { hashApiKey, looksLikeApiKey } from './accounts/keys.ts';

// HTTP Basic authentication as docs/auth.md defines it: `Authorization: Basic base64(KEY + ":")`.
// Every failure is 401 with an empty body. Keys are looked up by hash through a bounded cache,
// so the hot path costs no database round trip; a revoked key is dropped from this process's
// cache at once and from other processes' within AUTH_CACHE_TTL_MS (docs/auth.md).

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthenticatedKey | null;
  }
}

// Enough for every active key of a large deployment; least recently used keys fall out first.
const AUTH_CACHE_ENTRIES_MAX = 50_000;
// base64 of the longest possible key plus the colon; anything longer is refused unparsed.
const CREDENTIALS_BASE64_LENGTH_MAX = 128;
const BASE64_PATTERN = /^[A-Za-z0-9+/]+={0,2}$/;
const UNKNOWN_KEY = { unknown: true } as const;

type CacheValue = AuthenticatedKey | typeof UNKNOWN_KEY;

// Returns the API key from the header, or null for any malformed header.
export function parseBasicCredentials(header: string | undefined): string | null {
  if (!header) return null;
  const separatorIndex = header.indexOf(' ');
  if (separatorIndex < 0) return null;
  if (header.slice(0, separatorIndex).toLowerCase() !== 'basic') return null;
  const encoded = header.slice(separatorIndex + 1).trim();
  if (encoded.length === 0 || encoded.length > CREDENTIALS_BASE64_LENGTH_MAX) return null;
  if (encoded.length % 4 !== 0 || !BASE64_PATTERN.test(encoded)) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colonIndex = decoded.indexOf(':');
  if (colonIndex < 0) return null;
  if (colonIndex !== decoded.length - 1) return null; // The password must be empty.
  const key = decoded.slice(0, colonIndex);
  return looksLikeApiKey(key) ? key : null;
}

export type KeyCache = {
  // Resolves an Authorization header to its key, or null for any authentication failure.
  resolveHeader(header: string | undefined): Promise<AuthenticatedKey | null>;
  forget(key: string): void;
  // Drops every cached header of a key known only by its id (revoked in the dashboard, which
  // never sees the key itself). Walks the cache: revocations are rare.
  forgetKeyId(keyId: string): void;
};

function canonicalHeader(key: string): string {
  return `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
}

// Keys are cached by the exact header that carried them, so a repeat request costs one map
// lookup: no base64 decoding, no hashing, no database. Headers that cannot hold a key are refused
// without touching the cache.
export function createKeyCache(accounts: AccountsService, ttlMs: number, now: () => Date):
  KeyCache {
  async function lookup(header: string): Promise<CacheValue> {
    const key = parseBasicCredentials(header);
    if (key === null) return UNKNOWN_KEY;
    return (await accounts.findActiveKey(hashApiKey(key))) ?? UNKNOWN_KEY;
  }
  const cache = new LRUCache<string, CacheValue>({
    max: AUTH_CACHE_ENTRIES_MAX,
    ttl: Math.max(ttlMs, 1),
    // Entries expire by the platform's clock.
    perf: { now: () => now().getTime() },
    // Read the clock on every check: by default lru-cache keeps one reading until a timer
    // clears it, which a busy process may not run before a moved clock is to be seen.
    ttlResolution: 0,
    // Concurrent misses for one header share a single query.
    fetchMethod: lookup,
  });
  const toResult = (value: CacheValue | undefined) =>
    !value || 'unknown' in value ? null : value;
  return {
    async resolveHeader(header) {
      if (!header) return null;
      const cached = ttlMs === 0 ? undefined : cache.get(header);
      if (cached) return toResult(cached);
      if (parseBasicCredentials(header) === null) return null;
      return toResult(ttlMs === 0 ? await lookup(header) : await cache.fetch(header));
    },
    forget(key) {
      cache.delete(canonicalHeader(key));
    },
    forgetKeyId(keyId) {
      for (const [header, value] of cache.entries()) {
        if (!('unknown' in value) && value.keyId === keyId) cache.delete(header);
      }
    },
  };
}

function refuse(reply: FastifyReply) {
  return reply.code(401).header('WWW-Authenticate', 'Basic realm="etax"').send();
}

// The onRequest hook every /v1 route runs first.
export function authenticateWith(keys: KeyCache) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply) {
    const found = await keys.resolveHeader(request.headers.authorization);
    if (found === null) return refuse(reply);
    request.auth = found;
  };
}

async function authPlugin(app: FastifyInstance) {
  app.decorateRequest('auth', null);
}

export const auth = fp(authPlugin, { name: 'etax-auth' });

// For handlers behind authenticate: the key is always there.
export function requireAuth(request: FastifyRequest): AuthenticatedKey {
  if (request.auth === null) throw new Error('route is missing the authenticate hook');
  return request.auth;
}
