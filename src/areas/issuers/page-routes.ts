import multipart from '@fastify/multipart';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  escapeHtml,
  page,
  pageSecurityHeaders,
  sendPage as sendHtmlPage,
} from '../../platform/html-page.ts';
import { failedPage, formPage, registeredPage } from './page-html.ts';
import { KEY_FILE_PASSWORD_LENGTH_MAX } from '../../domain/signing-key-file.ts';
import { PageLinkError } from '../../platform/page-links.ts';
import type { CertificateUpload } from './certificate-check.ts';
import { REGISTRATION_PAGE_PATH, type PageAttempt } from './registration-links.ts';
import { CERTIFICATE_FILE_BYTES_MAX } from './schemas.ts';
import type { IssuersService } from './service.ts';

// The hosted certificate registration page (docs/issuers.md § Hosted registration), outside
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

// Reads the two files and the password; anything else in the form is refused.
async function readUpload(request: FastifyRequest): Promise<CertificateUpload> {
  try {
    return await readUploadParts(request);
  } catch (error) {
    // The multipart parser reports a form it cannot read (no boundary, cut off, a broken part
    // header) as a plain error; the limits it enforces come with their own 4xx status.
    if (error instanceof FormError || isClientError(error)) throw error;
    request.log.debug({ err: error }, 'certificate form could not be read');
    throw new FormError('The form could not be read. Send it again from the page.');
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
      throw new FormError(`The form has an unexpected field: ${part.fieldname}.`);
    }
  }
  const { signCert, signPri } = files;
  if (!signCert?.length || !signPri?.length) {
    throw new FormError('Choose both signCert.der and signPri.key.');
  }
  if (!password || password.length > KEY_FILE_PASSWORD_LENGTH_MAX) {
    throw new FormError('Type the certificate password.');
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
  await app.register(multipart, {
    limits: { fileSize: CERTIFICATE_FILE_BYTES_MAX, files: 2, fields: 1, parts: 3,
      fieldSize: KEY_FILE_PASSWORD_LENGTH_MAX * 4 },
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof PageLinkError) {
      return sendPage(reply, error.status, page('등록 링크 Registration link',
        `<p>${escapeHtml(error.message)}</p>`));
    }
    if (error instanceof FormError) {
      return sendPage(reply, 400, page('등록 실패 Not registered',
        `<p>${escapeHtml(error.message)}</p>`));
    }
    const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500
      ? error.statusCode : 500;
    if (status === 500) request.log.error({ err: error }, 'certificate page failed');
    const message = status === 413 ? 'A file is larger than 16 KiB.'
      : status === 500 ? 'An internal error occurred.' : 'The form could not be read.';
    return sendPage(reply, status, page('등록 실패 Not registered', `<p>${message}</p>`));
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
