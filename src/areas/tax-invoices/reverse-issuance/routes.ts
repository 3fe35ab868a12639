import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptEmptyJsonBodies } from '../../../platform/bodyless.ts';
import { BODY_ERRORS, errorResponses } from '../../../platform/error-responses.ts';
import { requestCaller, requestScope } from '../../../platform/scope.ts';
import {
  ACCEPTANCE_ERRORS,
  COMMON_ERRORS,
  SUPPLIER_ELIGIBILITY_ERRORS,
} from '../route-errors.ts';
import { IssueValidation } from '../issuance/schemas.ts';
import { IssuanceAccepted, IssuanceKeyParams, IssueBody, IssueHeaders } from '../schemas.ts';
import {
  ApprovalUrl,
  Canceled,
  Decided,
  RefusalBody,
  SupplierHeaders,
} from './schemas.ts';
import type { ReverseIssuanceService } from './service.ts';

// Reverse issuance under /v1 (docs/reverse-issuance.md). Handlers only translate: the caller in,
// the service's answer out.

const TAGS = ['Reverse issuance'];
// The two errors: the request is no longer waiting for a decision.
const CLOSED = ['ISSUE_REQUEST_ALREADY_APPROVED', 'ISSUE_REQUEST_ALREADY_CANCELED'] as const;
// What a decision of the supplier can answer besides COMMON_ERRORS and CLOSED.
const SUPPLIER_ERRORS = [...BODY_ERRORS, 'NOT_FOUND', 'ISSUER_DEACTIVATED'] as const;

type Options = { reverseIssuance: ReverseIssuanceService };

const registerRequest: FastifyPluginAsyncTypebox<Options> = async (app, { reverseIssuance }) => {
  app.post('/taxInvoices/issueRequest', {
    config: { operation: 'taxInvoices.issueRequest' },
    schema: {
      operationId: 'requestReverseIssuance', tags: TAGS,
      summary: 'Request reverse issuance (역발행 요청)',
      description: 'The recipient (the `supplied` body field) asks the supplier that ' +
        '`Supplier-Key` names to issue this tax invoice. Same headers, body and checks as ' +
        'POST /v1/taxInvoices/issue, but no certificate is needed yet: the request waits as ' +
        'REQUESTED, and the supplier is mailed a link to approve or refuse it. Charges the ' +
        '`taxInvoices.issue` price now, refunded if the request is refused or canceled.',
      headers: IssueHeaders, body: IssueBody,
      response: { 200: IssuanceAccepted,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS) },
    },
  }, async (request) => reverseIssuance.request({
    caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'],
    body: request.body,
  }));

  app.post('/taxInvoices/issueRequests::validate', {
    config: { operation: 'taxInvoices.issueRequest.validate' },
    schema: {
      operationId: 'validateReverseIssuanceRequest', tags: TAGS,
      summary: 'Validate a reverse issuance request',
      description: 'Runs everything POST /v1/taxInvoices/issueRequest runs, with the same ' +
        'headers and body, short of its effect: the body\'s checks, the totals and tax as ' +
        'etax computes them, the issue deadline, the supplier\'s eligibility, the points ' +
        'available for the price charged now and whether `Service-Client-Reference-Id` is ' +
        'still unused. Answers the document the supplier would be asked to issue, or exactly ' +
        'the error the request would give. Free: nothing is charged, recorded, claimed or ' +
        'mailed.',
      headers: IssueHeaders, body: IssueBody,
      response: { 200: IssueValidation,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS) },
    },
  }, async (request) => reverseIssuance.validateRequest({
    caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'],
    body: request.body,
  }));

  app.get('/taxInvoices/:issuanceKey/issueRequest/grant', {
    config: { operation: 'taxInvoices.issueRequest.grant' },
    schema: {
      operationId: 'getReverseIssuanceApprovalUrl', tags: TAGS,
      summary: 'Approval URL of a reverse issuance request',
      description: 'A one-time URL, valid ten minutes, to the page where the supplier reviews ' +
        'the request and approves or refuses it. Only for a REQUESTED request whose issue ' +
        'deadline has not passed, of a supplier with a registered joint certificate.',
      params: IssuanceKeyParams,
      response: { 200: ApprovalUrl, ...errorResponses(...COMMON_ERRORS, ...CLOSED, 'NOT_FOUND',
        'ISSUE_DEADLINE_PASSED', 'CERTIFICATE_NOT_REGISTERED', 'ISSUER_DEACTIVATED') },
    },
  }, async (request) => reverseIssuance.grant({ scope: requestScope(request),
    issuanceKey: request.params.issuanceKey }));
};

const registerDecisions: FastifyPluginAsyncTypebox<Options> = async (app, { reverseIssuance }) => {
  acceptEmptyJsonBodies(app);

  app.post('/taxInvoices/:issuanceKey/issueRequest/approve', {
    config: { operation: 'taxInvoices.issueRequest.approve', body: 'none' },
    schema: {
      operationId: 'approveReverseIssuance', tags: TAGS,
      summary: 'Approve a reverse issuance request (simple approval)',
      description: 'The supplier that `Supplier-Key` names approves its request: REQUESTED → ' +
        'APPROVED, then the invoice is signed with its registered joint certificate and ' +
        'transmitted (ISSUED → TRANSMITTING → TRANSMITTED). No body.',
      params: IssuanceKeyParams, headers: SupplierHeaders,
      response: { 200: Decided('APPROVED'), ...errorResponses(...COMMON_ERRORS, ...CLOSED,
        ...SUPPLIER_ERRORS, 'ISSUE_DEADLINE_PASSED', 'CERTIFICATE_NOT_REGISTERED',
        ...SUPPLIER_ELIGIBILITY_ERRORS) },
    },
  }, async (request) => reverseIssuance.approve({ scope: requestScope(request),
    supplierKey: request.headers['supplier-key'], issuanceKey: request.params.issuanceKey }));

  app.post('/taxInvoices/:issuanceKey/issueRequest/refuse', {
    // The body may be left out: none at all reads as `{}`.
    config: { operation: 'taxInvoices.issueRequest.refuse', body: 'optional' },
    schema: {
      operationId: 'refuseReverseIssuance', tags: TAGS,
      summary: 'Refuse a reverse issuance request',
      description: 'The supplier that `Supplier-Key` names refuses its request: REQUESTED → ' +
        'REFUSED, and the points are refunded. The body, with an optional `reason`, may be ' +
        'left out.',
      params: IssuanceKeyParams, headers: SupplierHeaders, body: RefusalBody,
      response: { 200: Decided('REFUSED'), ...errorResponses(...COMMON_ERRORS, ...CLOSED,
        ...SUPPLIER_ERRORS) },
    },
  }, async (request) => reverseIssuance.refuse({ scope: requestScope(request),
    supplierKey: request.headers['supplier-key'], issuanceKey: request.params.issuanceKey,
    reason: request.body.reason ?? null }));

  app.put('/taxInvoices/:issuanceKey/issueRequest/cancel', {
    config: { operation: 'taxInvoices.issueRequest.cancel', body: 'none' },
    schema: {
      operationId: 'cancelReverseIssuance', tags: TAGS,
      summary: 'Cancel a reverse issuance request',
      description: 'The requester withdraws a REQUESTED request: → ' +
        'REQUEST_CANCELED, and the points are refunded. Body: none (an empty body or `{}` is ' +
        'ignored, anything else is 400). A request already approved (or issued, transmitted ' +
        'or failed) is 409 ISSUE_REQUEST_ALREADY_APPROVED; one already canceled or refused is ' +
        '409 ISSUE_REQUEST_ALREADY_CANCELED; nothing changes on either.',
      params: IssuanceKeyParams,
      response: { 200: Canceled, ...errorResponses(...COMMON_ERRORS, ...BODY_ERRORS, ...CLOSED,
        'NOT_FOUND') },
    },
  }, async (request) => reverseIssuance.cancel({ scope: requestScope(request),
    issuanceKey: request.params.issuanceKey }));
};

export const reverseIssuanceRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerRequest, options);
  await app.register(registerDecisions, options);
};
