import type { FastifyError, FastifyInstance, FastifyRequest } from 'fastify';
import { pageFailureStatus } from './html-page.ts';

// The HTML forms of the hosted pages that post `application/x-www-form-urlencoded` (the
// connection page, the reverse issuance approval page): the body read into its fields, and the
// answer to a form the page could not use.

// A form the page refuses for what it holds: 400, with the message on the page.
export class FormError extends Error {}

// Reads a form body of at most `bytesMax` bytes into its fields; a field outside `fields`, or
// one given twice, is a FormError. JSON is not read: the page answers any other type with 415.
export function acceptForms(app: FastifyInstance,
  options: { fields: ReadonlySet<string>; bytesMax: number }) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: options.bytesMax },
    (_request, body, done) => {
      try {
        done(null, parseForm(String(body), options.fields));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
}

function parseForm(body: string, names: ReadonlySet<string>): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (!names.has(name) || name in fields) {
      throw new FormError(`The form has an unexpected field: ${name}.`);
    }
    fields[name] = value;
  }
  return fields;
}

// The status and message of a form request that failed for no reason of the page's own: the
// framework's 4xx (too large, another type, unreadable), 503 with `unavailableMessage` while
// the database cannot be reached, or 500 for a bug, logged as `page` failing.
export function formFailure(error: FastifyError, request: FastifyRequest,
  options: { page: string; unavailableMessage: string }): { status: number; message: string } {
  const status = pageFailureStatus(error);
  if (status >= 500) request.log.error({ err: error }, `${options.page} failed`);
  const message = status === 413 ? 'The form is too large.'
    : status === 415 ? 'Send the form as application/x-www-form-urlencoded.'
      : status === 503 ? options.unavailableMessage
        : status === 500 ? 'An internal error occurred.' : 'The form could not be read.';
  return { status, message };
}
