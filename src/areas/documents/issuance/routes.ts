import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { bodyErrors, INPUT_CHECKED_AFTER_COUNTING } from '../../../platform/error-responses.ts';
import { requestCaller } from '../../../platform/scope.ts';
import type { AcceptDocument, ValidateDocument } from '../acceptance/accept.ts';
import {
  DocumentAccepted,
  DocumentValidation,
  IssueDocumentBody,
  IssueDocumentHeaders,
} from '../schemas.ts';

// Requesting documents under /v1 (docs/documents.md): the request and its validation, both
// answered by acceptance (../acceptance/accept.ts). Handlers only translate: the caller in, the
// answer out, 202 for an accepted request.

type Options = { documents: { issue: AcceptDocument; validate: ValidateDocument } };

const registerDocuments: FastifyPluginAsyncTypebox<Options> = async (app, { documents }) => {
  app.post('/documents/issue', {
    config: { operation: 'documents.issue' },
    schema: {
      operationId: 'issueDocument', summary: 'Request a document',
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
        'INVALID_CORPORATE_REGISTRATION_NUMBER', 'INVALID_BUSINESS_REGISTRATION_NUMBER',
        'CORPORATION_TYPE_NOT_SUPPORTED',
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
      operationId: 'validateDocument', summary: 'Validate a document request',
      description: 'Runs everything POST /v1/documents/issue runs, with the same headers and ' +
        'body, short of its effect: the reference id (a replay is reported in `replayOf`, ' +
        'another body is 409 IDEMPOTENCY_CONFLICT), the type\'s rules, the owner business ' +
        'and its certificate, the fact a fact certificate certifies, and the points ' +
        'available for the price. Answers the request that would be made, or exactly the ' +
        'error it would give. Free: nothing is charged, reserved, recorded or claimed.',
      headers: IssueDocumentHeaders, body: IssueDocumentBody,
      response: { 200: DocumentValidation, ...bodyErrors(INPUT_CHECKED_AFTER_COUNTING,
        'INVALID_CORPORATE_REGISTRATION_NUMBER', 'INVALID_BUSINESS_REGISTRATION_NUMBER',
        'CORPORATION_TYPE_NOT_SUPPORTED',
        'PAYMENT_REQUIRED', 'AVAILABLE_POINTS_INSUFFICIENT', 'IDEMPOTENCY_CONFLICT',
        'OWNER_BUSINESS_NOT_REGISTERED', 'CERTIFICATE_NOT_REGISTERED', 'ISSUER_DEACTIVATED',
        'DOCUMENT_NOT_APPLICABLE') },
    },
  }, async (request) => documents.validate({ caller: requestCaller(request),
    referenceId: request.headers['service-client-reference-id'], body: request.body }));
};

export const issuanceRoutes: FastifyPluginAsyncTypebox<Options> = registerDocuments;
