import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isApiError } from '../../../platform/errors.ts';
import { acceptForms, FormError, formFailure } from '../../../platform/html-form.ts';
import {
  escapeHtml,
  linkProblemPage,
  page,
  pageSecurityHeaders,
  problemPage,
  sendPage as sendHtmlPage,
  type PageTitle,
  UNAVAILABLE_PAGE_MESSAGE,
} from '../../../platform/html-page.ts';
import { PageLinkError } from '../../../platform/page-links.ts';
import { APPROVAL_PAGE_PATH } from './links.ts';
import { reviewPage } from './page-html.ts';
import { REFUSAL_REASON_LENGTH_MAX } from './schemas.ts';
import type { PageDecision, ReverseIssuanceService } from './service.ts';
import { hasControlCharacter } from '../../../domain/text.ts';

// The approval page of reverse issuance requests (docs/reverse-issuance.md § Approval page),
// outside /v1 like the hosted certificate page: no API key, the one-time token in the path is
// the credential. The supplier's browser gets the request to review and posts its decision as
// an ordinary HTML form. Answers are HTML, never JSON; every failure is a page with a 4xx status
// (503 while the database cannot be reached, a 500 only for a bug; both logged).

// The form has two short fields; 4 KiB holds a 200-character reason percent-encoded many times.
const FORM_BYTES_MAX = 4_096;
const FORM_FIELDS = new Set(['decision', 'reason']);

// The forms post to this page, which answers with a page, never a redirect.
const PAGE_HEADERS = pageSecurityHeaders({ formActionSelf: true });

function sendPage(reply: FastifyReply, status: number, html: string) {
  return sendHtmlPage(reply, PAGE_HEADERS, status, html);
}

function readDecision(body: unknown): PageDecision {
  const fields = (body ?? {}) as Record<string, unknown>;
  if (fields.decision === 'approve') return { kind: 'approve' };
  if (fields.decision !== 'refuse') throw new FormError('Choose approve or refuse.');
  const reason = typeof fields.reason === 'string' ? fields.reason.trim() : '';
  if (reason.length > REFUSAL_REASON_LENGTH_MAX || hasControlCharacter(reason)) {
    throw new FormError(`The reason must be at most ${REFUSAL_REASON_LENGTH_MAX} characters ` +
      'on one line.');
  }
  return { kind: 'refuse', reason: reason === '' ? null : reason };
}

const LINK_TITLE = { ko: '승인 링크', en: 'Approval link' };
const NOT_POSSIBLE = { ko: '처리할 수 없습니다', en: 'Not possible' };

// The Korean lead of the refusals the page can meet; the error's message follows in English.
const REFUSALS: Record<string, string> = {
  ISSUE_REQUEST_ALREADY_APPROVED: '이미 승인된 요청입니다.',
  ISSUE_REQUEST_ALREADY_CANCELED: '이미 취소되었거나 거절된 요청입니다.',
  ISSUE_DEADLINE_PASSED: '발행 마감일이 지났습니다.',
  CERTIFICATE_NOT_REGISTERED: '등록된 공동인증서가 없습니다. 인증서를 등록한 뒤 다시 승인해 주세요.',
  ISSUER_DEACTIVATED: '더 이상 사용하지 않는 공급자입니다.',
  SUPPLIER_CLOSED: '폐업한 사업자는 세금계산서를 발행할 수 없습니다.',
  SUPPLIER_TAX_EXEMPT: '면세사업자는 계산서만 발행할 수 있습니다.',
  SUPPLIER_NOT_TAX_INVOICE_ISSUER: '세금계산서를 발급할 수 없는 간이과세자입니다.',
};

function pageError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof PageLinkError) {
    return sendPage(reply, error.status, linkProblemPage(LINK_TITLE, error));
  }
  if (isApiError(error) && error.status < 500) {
    return sendPage(reply, error.status, problemPage(NOT_POSSIBLE, error.message,
      { lead: REFUSALS[error.code] }));
  }
  if (error instanceof FormError) {
    return sendPage(reply, 400, problemPage(NOT_POSSIBLE, error.message));
  }
  const { status, message } = formFailure(error, request, { page: 'approval page',
    unavailableMessage: UNAVAILABLE_PAGE_MESSAGE });
  return sendPage(reply, status, problemPage(NOT_POSSIBLE, message));
}

// The confirmation after a decision.
const DONE: Record<string, { title: PageTitle; message: string }> = {
  APPROVED: { title: { ko: '승인 완료', en: 'Approved' }, message: '세금계산서를 발행하여 ' +
    '국세청에 전송합니다. The tax invoice is being issued and sent to the tax authority. You ' +
    'can close this page.' },
  REFUSED: { title: { ko: '거절 완료', en: 'Refused' }, message: '요청을 거절했습니다. 요청한 ' +
    '사업자에게 알려집니다. The request was refused; the requester will see it. You can close ' +
    'this page.' },
};

type Options = { reverseIssuance: ReverseIssuanceService };

export async function registerApprovalPageRoutes(
  app: FastifyInstance,
  { reverseIssuance }: Options,
) {
  // The page reads HTML forms only; anything else is 415.
  acceptForms(app, { fields: FORM_FIELDS, bytesMax: FORM_BYTES_MAX });
  app.setErrorHandler(pageError);

  const path = `${APPROVAL_PAGE_PATH}/:token`;
  const schema = { hide: true };

  app.get<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    const view = await reverseIssuance.openApprovalPage({ token: request.params.token });
    return sendPage(reply, 200, reviewPage(view, `${APPROVAL_PAGE_PATH}/${request.params.token}`));
  });

  app.post<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    const decision = readDecision(request.body);
    const decided = await reverseIssuance.decideOnPage({ token: request.params.token,
      decision });
    const done = DONE[decided.status]!;
    return sendPage(reply, 200, page(done.title,
      `<p class="notice success">${escapeHtml(done.message)}</p>`));
  });
}
