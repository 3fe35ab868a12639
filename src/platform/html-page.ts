import type { FastifyError, FastifyReply } from 'fastify';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { ERRORS, isApiError } from './errors.ts';

// The hosted pages outside /v1 (certificate registration, reverse issuance approval): small
// server-rendered HTML documents with no script, every value escaped, and headers that keep
// them out of frames, caches and referrers.

const ESCAPES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;',
};

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

export function page(title: string, body: string): string {
  return '<!doctype html><html lang="ko"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title></head><body><main>` +
    `<h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export const messagePage = (title: string, message: string) =>
  page(title, `<p>${escapeHtml(message)}</p>`);

// `formActionSelf` adds form-action 'self' for a page whose forms post to itself and answer
// with a page. A page whose POST redirects elsewhere leaves it out: browsers apply form-action
// to that redirect too.
export function pageSecurityHeaders(options: { formActionSelf: boolean }) {
  const formAction = options.formActionSelf ? "; form-action 'self'" : '';
  return {
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; " +
      `frame-ancestors 'none'; base-uri 'none'${formAction}`,
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
  };
}

export function sendPage(
  reply: FastifyReply,
  headers: Record<string, string>,
  status: number,
  html: string,
) {
  return reply.code(status).headers(headers).type('text/html; charset=utf-8').send(html);
}

// The status of a page request that failed for no reason of the page's own: a client error the
// framework found (a body too large, an unreadable form) keeps its 4xx; a database that cannot
// be reached is 503, as the API answers it (docs/errors.md), since reloading later works, and so
// is a service's own 503; anything else is a bug, 500.
export function pageFailureStatus(error: FastifyError): number {
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return error.statusCode;
  }
  if (isApiError(error) && error.status === 503) return 503;
  return isDatabaseUnavailable(error) ? 503 : 500;
}

// The text of a 503 page: the API's SERVICE_UNAVAILABLE message.
export const UNAVAILABLE_PAGE_MESSAGE = ERRORS.SERVICE_UNAVAILABLE.message;
