import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KEY_FILE_PASSWORD_LENGTH_MAX } from '../../domain/key-file-limits.ts';
import {
  linkProblemPage,
  pageFailureStatus,
  pageSecurityHeaders,
  problemPage,
  sendPage as sendHtmlPage,
  UNAVAILABLE_PAGE_MESSAGE,
} from '../../platform/html-page.ts';
import { multipartOptions } from '../../platform/multipart.ts';
import { PageLinkError } from '../../platform/page-links.ts';
import type { CertificateUpload } from './certificate-check.ts';
import { failedPage, formPage, registeredPage } from './page-html.ts';
import { REGISTRATION_PAGE_PATH, type PageAttempt } from './registration-links.ts';
import { CERTIFICATE_FILE_BYTES_MAX } from './schemas.ts';
import type { IssuersService } from './service.ts';

// The hosted certificate registration page (docs/issuers.md § Certificate registration), outside
// /v1: no API key, the token in the path is the credential. The business owner's browser gets
// an HTML form and posts it as multipart/form-data; the answer says what the upload came to.
// Answers are HTML, never JSON.

// No form-action directive: browsers apply it to the redirect after the POST too, and the
// redirect goes to the key's own site.
const PAGE_HEADERS = pageSecurityHeaders({ formActionSelf: false });

function sendPage(reply: FastifyReply, status: number, html: string) {
  return sendHtmlPage(reply, PAGE_HEADERS, status, html);
}

class FormError extends Error {}

const LINK_TITLE = { ko: '등록 링크', en: 'Registration link' };
const FAILED_TITLE = { ko: '등록하지 못했습니다', en: 'Not registered' };
const UNREADABLE_FORM = '양식을 읽을 수 없습니다. The form could not be read. Send it again ' +
  'from the page.';

// Reads the two files and the password; anything else in the form is refused.
async function readUpload(request: FastifyRequest): Promise<CertificateUpload> {
  try {
    return await readUploadParts(request);
  } catch (error) {
    // The multipart parser reports a form it cannot read (no boundary, cut off, a broken part
    // header) as a plain error; the limits it enforces come with their own 4xx status.
    if (error instanceof FormError || isClientError(error)) throw error;
    request.log.debug({ err: error }, 'certificate form could not be read');
    throw new FormError(UNREADABLE_FORM);
  }
}

function isClientError(error: unknown): boolean {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status >= 400 && status < 500;
}

async function readUploadParts(request: FastifyRequest): Promise<CertificateUpload> {
  const files: Record<string, Buffer> = {};
  let password: string | undefined;
  for await (const part of request.parts()) {
    if (part.type === 'file' && (part.fieldname === 'signCert' || part.fieldname === 'signPri')) {
      files[part.fieldname] = await part.toBuffer();
    } else if (part.type === 'field' && part.fieldname === 'password') {
      password = String(part.value);
    } else {
      if (part.type === 'file') await part.toBuffer();
      throw new FormError('양식에 알 수 없는 항목이 있습니다. The form has an unexpected ' +
        `field: ${part.fieldname}.`);
    }
  }
  const { signCert, signPri } = files;
  if (!signCert?.length || !signPri?.length) {
    throw new FormError('signCert.der와 signPri.key를 모두 선택해 주세요. Choose both ' +
      'signCert.der and signPri.key.');
  }
  if (!password || password.length > KEY_FILE_PASSWORD_LENGTH_MAX) {
    throw new FormError('인증서 비밀번호를 입력해 주세요. Type the certificate password.');
  }
  return { signCert, signPri, password };
}

function redirectTarget(url: string, attempt: PageAttempt) {
  const target = new URL(url);
  target.searchParams.set('issuerId', attempt.record.issuerId);
  target.searchParams.set('identifier', attempt.record.identifier);
  return target.toString();
}

type Options = { issuers: IssuersService };

export async function registerCertificatePageRoutes(app: FastifyInstance, { issuers }: Options) {
  await app.register(multipart, multipartOptions({ fileSize: CERTIFICATE_FILE_BYTES_MAX,
    files: 2, fields: 1, parts: 3, fieldSize: KEY_FILE_PASSWORD_LENGTH_MAX * 4 }));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PageLinkError) {
      return sendPage(reply, error.status, linkProblemPage(LINK_TITLE, error));
    }
    // The link still works after a form it could not use: offer the form again.
    const { token } = request.params as { token?: string };
    const retryPath = token === undefined ? undefined
      : `${REGISTRATION_PAGE_PATH}/${encodeURIComponent(token)}`;
    if (error instanceof FormError) {
      return sendPage(reply, 400, problemPage(FAILED_TITLE, error.message, { retryPath }));
    }
    const status = pageFailureStatus(error);
    if (status >= 500) request.log.error({ err: error }, 'certificate page failed');
    const message = status === 413 ? '파일이 16 KiB보다 큽니다. A file is larger than 16 KiB.'
      : status === 503 ? `잠시 후 다시 시도해 주세요. ${UNAVAILABLE_PAGE_MESSAGE}`
        : status === 500 ? '일시적인 오류가 발생했습니다. An internal error occurred.'
          : UNREADABLE_FORM;
    return sendPage(reply, status, problemPage(FAILED_TITLE, message, { retryPath }));
  });

  const path = `${REGISTRATION_PAGE_PATH}/:token`;
  const schema = { hide: true };

  app.get<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    const { token } = request.params;
    return sendPage(reply, 200, formPage(token, await issuers.openRegistrationPage(token)));
  });

  // A registration goes to the key's redirect URL when it has one; a failed attempt stays here
  // with the form, because the owner can try again on the same link.
  app.post<{ Params: { token: string } }>(path, { schema }, async (request, reply) => {
    if (!request.isMultipart()) throw new FormError('Send the form as multipart/form-data.');
    const { token } = request.params;
    const attempt = await issuers.submitHostedCertificate(token, await readUpload(request));
    if (attempt.record.code !== 'REGISTERED') {
      return sendPage(reply, 422, failedPage(token, attempt));
    }
    if (attempt.redirectUrl !== null) {
      return reply.headers(PAGE_HEADERS).redirect(redirectTarget(attempt.redirectUrl, attempt),
        303);
    }
    return sendPage(reply, 200, registeredPage(attempt));
  });
}
