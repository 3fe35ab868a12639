import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { isDatabaseUnavailable } from './db/unavailable.ts';
import { ApiError, ERRORS, isApiError, type ErrorBody, type ErrorCode } from './errors.ts';
import { preferredLanguage, type MessageLanguage } from './language.ts';
import { TRACE_ID_HEADER } from './trace.ts';
import { validationMessage } from './validation-messages.ts';

// Fastify's own client errors, mapped to our codes. Anything else without one of our codes is
// a bug and becomes 500 INTERNAL_SERVER_ERROR with our own message.
const FRAMEWORK_ERROR_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'INVALID_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_REQUEST',
  FST_ERR_VALIDATION: 'INVALID_REQUEST',
};

const FRAMEWORK_ERROR_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'Content-Length does not match the request body.',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'The request body is empty; send a JSON document.',
  FST_ERR_CTP_INVALID_JSON_BODY: 'The request body is not valid JSON.',
};

// The message in the request's language. A Korean request gets the code's Korean message; where
// the error carries a message of its own (which field, which limit), that detail follows in
// parentheses, as written: details are English.
function localizedMessage(error: ApiError, language: MessageLanguage): string {
  if (language === 'en') return error.message;
  const { message, messageKo } = ERRORS[error.code];
  return error.message === message ? messageKo : `${messageKo} (${error.message})`;
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: ApiError) {
  const language = preferredLanguage(request);
  const body: ErrorBody = { code: error.code, message: localizedMessage(error, language),
    traceId: request.id };
  return reply.code(error.status).header('content-language', language)
    .type('application/json; charset=utf-8').send(body);
}

function toApiError(error: FastifyError | Error): ApiError | null {
  if (isApiError(error)) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) {
    const message = validationMessage(fastifyError.validation,
      fastifyError.validationContext ?? 'request');
    return new ApiError('INVALID_REQUEST', message);
  }
  // JSON.parse failures arrive as SyntaxError with statusCode 400 from the body parser.
  if (fastifyError.code && FRAMEWORK_ERROR_CODES[fastifyError.code]) {
    const code = FRAMEWORK_ERROR_CODES[fastifyError.code]!;
    return new ApiError(code, FRAMEWORK_ERROR_MESSAGES[fastifyError.code]);
  }
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new ApiError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  if (fastifyError.statusCode === 400) return new ApiError('INVALID_REQUEST');
  if (fastifyError.statusCode === 413) return new ApiError('PAYLOAD_TOO_LARGE');
  if (fastifyError.statusCode === 415) return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  if (isDatabaseUnavailable(error)) return new ApiError('SERVICE_UNAVAILABLE');
  return null;
}

// Errors Fastify raises before routing: a URL with broken percent-encoding or a path parameter
// over the router's limit. They skip the error handler and every hook, so this is meant for
// Fastify's `frameworkErrors` option (src/server.ts) and sets the Trace-Id header itself.
export function handleFrameworkError(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  reply.header(TRACE_ID_HEADER, request.id);
  if (error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const message = 'The request URL is invalid.';
    void sendError(request, reply, new ApiError('INVALID_REQUEST', message));
    return;
  }
  request.log.error({ err: error }, 'unexpected error');
  void sendError(request, reply, new ApiError('INTERNAL_SERVER_ERROR'));
}

async function errorHandlerPlugin(app: FastifyInstance) {
  // Bodies are JSON only. Fastify's built-in text/plain parser would hand a text body to
  // validation as a string, a 400, where the answer is 415 UNSUPPORTED_MEDIA_TYPE.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError) {
      if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, apiError);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(request, reply, new ApiError('INTERNAL_SERVER_ERROR'));
  });

  app.setNotFoundHandler((request, reply) => {
    return sendError(request, reply, new ApiError('NOT_FOUND', 'No such route.'));
  });
}

export const errorHandler = fp(errorHandlerPlugin, { name: 'etax-error-handler' });
