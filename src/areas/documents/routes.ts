import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../platform/paging.ts';
import { PDF_RESPONSE, sendPdf } from '../../platform/pdf-response.ts';
import {
  bodyErrors,
  inputErrors,
  operationErrors,
  INPUT_CHECKED_AFTER_COUNTING,
} from '../../platform/error-responses.ts';
import { requestCaller, requestScope } from '../../platform/scope.ts';
import type { OwnerBusinesses } from './owner-business.ts';
import {
  DocumentAccepted,
  DocumentPage,
  DocumentSchema,
  DocumentValidation,
  IssuanceKeyParams,
  IssueDocumentBody,
  IssueDocumentHeaders,
  ListDocumentsQuery,
  OwnerBusiness,
  OwnerBusinessBody,
} from './schemas.ts';
import type { DocumentsService } from './service.ts';

// Document issuance and the owner business under /v1 (docs/documents.md). Handlers only
// translate: the caller in, the service's answer out.

const TAGS = ['Documents'];

type Options = { documents: DocumentsService; owners: OwnerBusinesses };

const registerOwnerBusiness: FastifyPluginAsyncTypebox<Options> = async (app, { owners }) => {
  app.get('/account/business', {
    config: { operation: 'account.business.get' },
    schema: {
      operationId: 'getOwnerBusiness', tags: TAGS, summary: 'Get the owner business',
      description: 'The business that owns this account\'s API keys in this environment: the ' +
        'only business tax-authority documents are issued for. 409 ' +
        'OWNER_BUSINESS_NOT_REGISTERED until it is set.',
      response: { 200: OwnerBusiness, ...operationErrors('OWNER_BUSINESS_NOT_REGISTERED') },
    },
  }, async (request) => owners.get(requestScope(request)));

  app.put('/account/business', {
    config: { operation: 'account.business.save' },
    schema: {
      operationId: 'saveOwnerBusiness', tags: TAGS, summary: 'Set the owner business',
      description: 'Sets the business that owns this account\'s API keys in this environment ' +
        '(one per environment). It is kept as an issuer (an active issuer of the same number ' +
        'is taken over, with its certificate): register its joint certificate with ' +
        'POST /v1/issuers/{issuerId}/certificates or on the hosted page of ' +
        'GET /v1/issuers/{issuerId}/certificates/url. Another business number replaces the ' +
        'owner business; the earlier issuer stays as it is.',
      body: OwnerBusinessBody,
      response: { 200: OwnerBusiness, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_ALREADY_REGISTERED') },
    },
  }, async (request) => owners.save(requestScope(request), request.body));
};

const registerDocuments: FastifyPluginAsyncTypebox<Options> = async (app, { documents }) => {
  app.post('/documents/issue', {
    config: { operation: 'documents.issue' },
    schema: {
      operationId: 'issueDocument', tags: TAGS, summary: 'Request a document',
      description: 'Requests a tax-authority certificate of the owner business (it needs a ' +
        'registered, valid joint certificate: 409 OWNER_BUSINESS_NOT_REGISTERED or ' +
        'CERTIFICATE_NOT_REGISTERED otherwise) or a certified copy of any supported ' +
        'corporation\'s register (no certificate needed). The document is issued ' +
        'asynchronously: follow GET /v1/documents/{issuanceKey} or the ' +
        'DOCUMENT_ISSUANCE_SUCCESS and _FAILURE webhooks. `Service-Client-Reference-Id` is ' +
        'required: the same value with the same body answers the earlier request (202, ' +
        'nothing charged again); with another body, 409 IDEMPOTENCY_CONFLICT. Reserves 500 ' +
        'points for a tax-authority document, 1,000 for a registry view copy and 1,500 for a ' +
        'registry submission copy; charged when issued, released if it fails. A fact ' +
        'certificate (휴업/폐업사실증명) of a state the tax authority does not report for the ' +
        'owner business is 409 DOCUMENT_NOT_APPLICABLE.',
      headers: IssueDocumentHeaders, body: IssueDocumentBody,
      response: { 202: DocumentAccepted, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_CORPORATE_REGISTRATION_NUMBER', 'CORPORATION_TYPE_NOT_SUPPORTED',
        'PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT', 'IDEMPOTENCY_CONFLICT',
        'OWNER_BUSINESS_NOT_REGISTERED', 'CERTIFICATE_NOT_REGISTERED', 'ISSUER_DEACTIVATED',
        'DOCUMENT_NOT_APPLICABLE') },
    },
  }, async (request, reply) => {
    const accepted = await documents.issue({ caller: requestCaller(request),
      referenceId: request.headers['service-client-reference-id'], body: request.body });
    return reply.code(202).send(accepted);
  });

  app.post('/documents::validate', {
    config: { operation: 'documents.validate' },
    schema: {
      operationId: 'validateDocument', tags: TAGS, summary: 'Validate a document request',
      description: 'Runs everything POST /v1/documents/issue runs, with the same headers and ' +
        'body, short of its effect: the reference id (a replay is reported in `replayOf`, ' +
        'another body is 409 IDEMPOTENCY_CONFLICT), the type\'s rules, the owner business ' +
        'and its certificate, the fact a fact certificate certifies, and the points ' +
        'available for the price. Answers the request that would be made, or exactly the ' +
        'error it would give. Free: nothing is charged, reserved, recorded or claimed.',
      headers: IssueDocumentHeaders, body: IssueDocumentBody,
      response: { 200: DocumentValidation, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_CORPORATE_REGISTRATION_NUMBER', 'CORPORATION_TYPE_NOT_SUPPORTED',
        'PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT', 'IDEMPOTENCY_CONFLICT',
        'OWNER_BUSINESS_NOT_REGISTERED', 'CERTIFICATE_NOT_REGISTERED', 'ISSUER_DEACTIVATED',
        'DOCUMENT_NOT_APPLICABLE') },
    },
  }, async (request) => documents.validate({ caller: requestCaller(request),
    referenceId: request.headers['service-client-reference-id'], body: request.body }));
};

const registerReads: FastifyPluginAsyncTypebox<Options> = async (app, { documents }) => {
  app.get('/documents', {
    config: { operation: 'documents.list' },
    schema: {
      operationId: 'listDocuments', tags: TAGS, summary: 'List document requests',
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
      operationId: 'getDocument', tags: TAGS, summary: 'Get a document request',
      description: 'Its status (ACCEPTED, PROCESSING, ISSUED or FAILED with its failure), ' +
        'issue number, the SHA-256 of its PDF and its times.',
      params: IssuanceKeyParams,
      response: { 200: DocumentSchema, ...inputErrors('NOT_FOUND') },
    },
  }, async (request) => documents.get({ scope: requestScope(request), ...request.params }));

  app.get('/documents/:issuanceKey/pdf', {
    config: { operation: 'documents.pdf' },
    schema: {
      operationId: 'getDocumentPdf', tags: TAGS, summary: 'Download the original PDF',
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

export const documentRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerOwnerBusiness, options);
  await app.register(registerDocuments, options);
  await app.register(registerReads, options);
};
