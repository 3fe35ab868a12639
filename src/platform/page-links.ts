import { createHash, randomBytes } from 'node:crypto';

// One-time links to the pages etax serves (the hosted certificate page, the reverse-issuance
// approval page): a random token in the path is the only credential of the page, and only its
// SHA-256 is stored.

// 32 random bytes, like an API key.
const TOKEN_RANDOM_BYTES = 32;
// The base64url text of TOKEN_RANDOM_BYTES bytes.
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function newPageToken(): string {
  return randomBytes(TOKEN_RANDOM_BYTES).toString('base64url');
}

// Whether text can be a token at all; anything else is never looked up.
export function isPageToken(text: string): boolean {
  return TOKEN_PATTERN.test(text);
}

// What the database stores and looks a token up by.
export function hashPageToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// The address of a page's link: the public base URL (without its trailing slashes), the page's
// path, then the token.
export function pageLinkUrl(publicBaseUrl: string, pagePath: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${pagePath}/${token}`;
}

// Why a link does not open: unknown (404), or used or expired (410).
export class PageLinkError extends Error {
  readonly status: 404 | 410;
  constructor(status: 404 | 410, message: string) {
    super(message);
    this.status = status;
  }
}
