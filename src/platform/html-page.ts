import type { FastifyError, FastifyReply } from 'fastify';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { ERRORS, isApiError } from './errors.ts';
import type { PageLinkError } from './page-links.ts';
import { PAGE_STYLE_SOURCE, PAGE_STYLESHEET } from './page-style.ts';

// The hosted pages outside /v1 (certificate registration, reverse issuance approval): small
// server-rendered HTML documents with no script, every value escaped, one stylesheet allowed by
// its hash, and headers that keep them out of frames, caches and referrers. Business owners read
// them in Korean or English, so every title and label carries both.

const ESCAPES: Record<string, string> = {
  '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\'': '&#39;',
};

export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

// A page title in both languages: the Korean heading with the English one under it.
export type PageTitle = { ko: string; en: string };

export function page(title: PageTitle, body: string): string {
  const ko = escapeHtml(title.ko);
  const en = escapeHtml(title.en);
  return '<!doctype html><html lang="ko"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    // An empty icon: keeps browsers from asking this server for /favicon.ico, which it has not.
    '<link rel="icon" href="data:,">' +
    `<title>${ko} · ${en}</title><style>${PAGE_STYLESHEET}</style></head><body>` +
    '<header class="brand"><b>etax</b><span>전자세금계산서 · e-Tax invoice</span></header>' +
    `<main><h1>${ko}<span class="en" lang="en">${en}</span></h1>${body}</main></body></html>`;
}

type ProblemOptions = { lead?: string | undefined; retryPath?: string | undefined };

// A page whose answer went wrong: what happened in a notice (a Korean lead, when the message is
// English only), and optionally a link to try again.
export function problemPage(title: PageTitle, message: string, options: ProblemOptions = {}) {
  const lead = options.lead === undefined ? '' : `<strong>${escapeHtml(options.lead)}</strong>`;
  const retry = options.retryPath === undefined ? ''
    : `<p><a href="${escapeHtml(options.retryPath)}">다시 시도 · Try again</a></p>`;
  return page(title, `<div class="notice error" role="alert">${lead}` +
    `<p>${escapeHtml(message)}</p></div>${retry}`);
}

const LINK_PROBLEMS = {
  404: '이 링크를 찾을 수 없습니다. 받은 주소를 확인해 주세요.',
  410: '이 링크는 더 이상 사용할 수 없습니다. 필요하면 새 링크를 요청해 주세요.',
} as const;

// The page of a link that does not open: the reason in Korean, then the error's own words.
export function linkProblemPage(title: PageTitle, error: PageLinkError): string {
  return problemPage(title, error.message, { lead: LINK_PROBLEMS[error.status] });
}

// `formActionSelf` adds form-action 'self' for a page whose forms post to itself and answer
// with a page. A page whose POST redirects elsewhere leaves it out: browsers apply form-action
// to that redirect too.
export function pageSecurityHeaders(options: { formActionSelf: boolean }) {
  const formAction = options.formActionSelf ? "; form-action 'self'" : '';
  return {
    'content-security-policy': `default-src 'none'; style-src ${PAGE_STYLE_SOURCE}; ` +
      `img-src data:; frame-ancestors 'none'; base-uri 'none'${formAction}`,
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
