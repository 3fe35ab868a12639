import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { normalizeAccountNumber, findBank } from '../../domain/bank-codes.ts';
import {
  isValidBusinessRegistrationNumber,
  normalizeBusinessRegistrationNumber,
} from '../../domain/business-registration-number.ts';
import { ERRORS, isApiError } from '../../platform/errors.ts';
import { acceptForms, FormError, formFailure } from '../../platform/html-form.ts';
import {
  linkProblemPage,
  pageSecurityHeaders,
  problemPage,
  sendPage as sendHtmlPage,
  UNAVAILABLE_PAGE_MESSAGE,
} from '../../platform/html-page.ts';
import { PageLinkError } from '../../platform/page-links.ts';
import { CONNECTION_PAGE_PATH, type ConnectionLinks, type ConnectionPage } from './links.ts';
import { TooManyFailedLogins } from './login-limits.ts';
import { connectedPage, failedPage, formPage } from './page-html.ts';
import type { ConnectInput } from './service.ts';
import { hasControlCharacter } from '../../domain/text.ts';

// The hosted connection page (docs/connections.md § Making a connection), outside /v1: no API key,
// the one-time token in the path is the credential. The owner's browser posts an ordinary HTML
// form; the answer says at once whether the login worked. Answers are HTML, never JSON.

const FORM_BYTES_MAX = 4_096;
const FIELDS = { HOMETAX: ['businessRegistrationNumber', 'userId', 'password'],
  BANK_ACCOUNT: ['bankCode', 'accountNumber', 'userId', 'password'] } as const;
const ALL_FIELDS = new Set<string>([...FIELDS.HOMETAX, ...FIELDS.BANK_ACCOUNT]);
const TEXT_LENGTH_MAX = 100;

const PAGE_HEADERS = pageSecurityHeaders({ formActionSelf: true });
const LINK_TITLE = { ko: '연결 링크', en: 'Connection link' };
const NOT_CONNECTED = { ko: '연결하지 못했습니다', en: 'Not connected' };

function sendPage(reply: FastifyReply, status: number, html: string) {
  return sendHtmlPage(reply, PAGE_HEADERS, status, html);
}

function text(fields: Record<string, unknown>, name: string, label: string): string {
  const value = fields[name];
  if (typeof value !== 'string' || value.trim() === '' || value.length > TEXT_LENGTH_MAX ||
    hasControlCharacter(value)) {
    throw new FormError(`${label}을(를) 입력해 주세요. Type the ${label.split(' ').at(-1)}.`);
  }
  return value;
}

// What the form of the link's kind holds, checked as the API would check it.
function readConnectForm(view: ConnectionPage, body: unknown): ConnectInput {
  const fields = (body ?? {}) as Record<string, unknown>;
  const userId = text(fields, 'userId', '아이디 user id').trim();
  const password = text(fields, 'password', '비밀번호 password');
  if (view.kind === 'HOMETAX') {
    const number = normalizeBusinessRegistrationNumber(
      text(fields, 'businessRegistrationNumber', '사업자등록번호 number'));
    if (number === null || !isValidBusinessRegistrationNumber(number)) {
      throw new FormError('사업자등록번호가 올바르지 않습니다. The business registration number ' +
        'is not valid.');
    }
    return { kind: 'HOMETAX', method: 'PASSWORD', businessRegistrationNumber: number, userId,
      password };
  }
  const bankCode = text(fields, 'bankCode', '은행 bank').trim();
  const accountNumber = normalizeAccountNumber(text(fields, 'accountNumber', '계좌번호 number'));
  if (findBank(bankCode) === null) {
    throw new FormError('은행을 목록에서 고르세요. Choose the bank from the list.');
  }
  if (accountNumber === null) {
    throw new FormError('계좌번호가 올바르지 않습니다. The account number is not valid.');
  }
  return { kind: 'BANK_ACCOUNT', bankCode, accountNumber, userId, password };
}

function pageError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof PageLinkError) {
    return sendPage(reply, error.status, linkProblemPage(LINK_TITLE, error));
  }
  const { token } = request.params as { token?: string };
  const retryPath = token === undefined ? undefined
    : `${CONNECTION_PAGE_PATH}/${encodeURIComponent(token)}`;
  if (error instanceof TooManyFailedLogins) {
    reply.header('retry-after', String(error.retryAfterSeconds));
    return sendPage(reply, 429, problemPage(NOT_CONNECTED, '로그인 실패가 너무 많습니다. ' +
      `${Math.ceil(error.retryAfterSeconds / 60)}분 후에 다시 시도해 주세요. Too many failed ` +
      `logins; try again in ${Math.ceil(error.retryAfterSeconds / 60)} minutes.`));
  }
  if (error instanceof FormError) {
    return sendPage(reply, 400, problemPage(NOT_CONNECTED, error.message, { retryPath }));
  }
  if (isApiError(error) && error.status < 500) {
    // The page is read in Korean and in English, as its form errors are.
    const message = `${ERRORS[error.code].messageKo} ${error.message}`;
    return sendPage(reply, error.status, problemPage(NOT_CONNECTED, message, { retryPath }));
  }
  const { status, message } = formFailure(error, request, { page: 'connection page',
    unavailableMessage: `잠시 후 다시 시도해 주세요. ${UNAVAILABLE_PAGE_MESSAGE}` });
  return sendPage(reply, status, problemPage(NOT_CONNECTED, message, { retryPath }));
}

export async function registerConnectionPageRoutes(app: FastifyInstance,
  { links }: { links: ConnectionLinks }) {
  acceptForms(app, { fields: ALL_FIELDS, bytesMax: FORM_BYTES_MAX });
  app.setErrorHandler(pageError);

  const path = `${CONNECTION_PAGE_PATH}/:token`;
  const schema = { hide: true };

  app.get<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    const { token } = request.params;
    return sendPage(reply, 200, formPage(token, await links.openPage(token)));
  });

  app.post<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    const { token } = request.params;
    const view = await links.openPage(token);
    const { outcome, page } = await links.submit(token, readConnectForm(view, request.body),
      { address: request.ip });
    if (outcome.kind === 'failed') return sendPage(reply, 422, failedPage(token, page, outcome));
    return sendPage(reply, 200, connectedPage(outcome.connection));
  });
}
