import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PDF_RESPONSE, sendPdf } from '../../../platform/pdf-response.ts';
import { inputErrors, INPUT_CHECKED_AFTER_COUNTING } from '../../../platform/error-responses.ts';
import { withHasMore } from '../../../platform/paging.ts';
import { requestScope } from '../../../platform/scope.ts';
import {
  DocumentPage,
  DocumentSchema,
  IssuanceKeyParams,
  ListDocumentsQuery,
} from '../schemas.ts';
import type { RetrievalService } from './service.ts';

// Reading document requests under /v1 (docs/documents.md § Status and download): the list, a
// request and its original PDF. Handlers only translate: the caller in, the service's answer out.

type Options = { documents: RetrievalService };

const registerReads: FastifyPluginAsyncTypebox<Options> = async (app, { documents }) => {
  app.get('/documents', {
    config: { operation: 'documents.list' },
    schema: {
      operationId: 'listDocuments', summary: 'List document requests',
      description: 'Document requests of this account and environment, newest first, ' +
        'filtered by status and type, paged with an opaque cursor.',
      querystring: ListDocumentsQuery,
      response: { 200: DocumentPage, ...inputErrors(INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => withHasMore(await documents.list({ scope: requestScope(request),
    ...request.query })));

  app.get('/documents/:issuanceKey', {
    config: { operation: 'documents.get' },
    schema: {
      operationId: 'getDocument', summary: 'Get a document request',
      description: 'Its status (ACCEPTED, PROCESSING, ISSUED or FAILED with its failure), ' +
        'issue number, the SHA-256 of its PDF and its times.',
      params: IssuanceKeyParams,
      response: { 200: DocumentSchema, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => documents.get({ scope: requestScope(request), ...request.params }));

  app.get('/documents/:issuanceKey/pdf', {
    config: { operation: 'documents.pdf' },
    schema: {
      operationId: 'getDocumentPdf', summary: 'Download the original PDF',
      description: 'The PDF exactly as the tax authority or the court registry issued it, byte ' +
        'for byte (its SHA-256 is the status\'s `pdfSha256`). 409 DOCUMENT_NOT_ISSUED before ' +
        'the document is ISSUED.',
      params: IssuanceKeyParams,
      response: {
        200: PDF_RESPONSE,
        ...inputErrors('NOT_FOUND', 'DOCUMENT_NOT_ISSUED'),
      },
    },
  }, async (request, reply) => {
    const pdf = await documents.pdf({ scope: requestScope(request), ...request.params });
    return sendPdf(reply, request.params.issuanceKey, pdf);
  });
};

export const retrievalRoutes: FastifyPluginAsyncTypebox<Options> = registerReads;
