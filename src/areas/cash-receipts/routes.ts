import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { withHasMore } from '../../platform/paging.ts';
import { PDF_RESPONSE, sendPdf } from '../../platform/pdf-response.ts';
import {
  BODY_ERRORS,
  errorResponses,
  INPUT_CHECKED_AFTER_COUNTING,
  PLATFORM_ERRORS,
} from '../../platform/error-responses.ts';
import { requestCaller, requestScope } from '../../platform/scope.ts';
import {
  CancelBody,
  CancelHeaders,
  CashReceipt,
  CashReceiptAccepted,
  CashReceiptPage,
  IssuanceKeyParams,
  IssueBody,
  IssueHeaders,
  IssueValidation,
  ListQuery,
  ReferenceStatus,
  StatusQuery,
} from './schemas.ts';
import type { CashReceiptsService } from './service.ts';

// Cash receipts under /v1 (docs/cash-receipts.md). Handlers only translate: the caller in, the
// service's answer out, 202 for accepted requests.

const TAGS = ['Cash receipts'];

export const COMMON_ERRORS = [...PLATFORM_ERRORS, 'INVALID_REQUEST'] as const;
// What issuance and cancellation answer besides COMMON_ERRORS; the body and the reference id are
// checked after the rate limit.
const ACCEPTANCE_ERRORS = [...BODY_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'PAYMENT_REQUIRED',
  'NOT_FOUND', 'AVAILABLE_POINTS_INSUFFICIENT', 'IDEMPOTENCY_CONFLICT',
  'SERVICE_UNAVAILABLE'] as const;

// What issuance answers besides the platform's errors: the issue route's, and a draft's issue
// (src/areas/drafts/).
export const ISSUE_ERRORS = [...COMMON_ERRORS, ...ACCEPTANCE_ERRORS,
  'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_DEACTIVATED'] as const;

type Options = { cashReceipts: CashReceiptsService };

const registerIssuance: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.post('/cashReceipts/issue', {
    config: { operation: 'cashReceipts.issue' },
    schema: {
      operationId: 'issueCashReceipt', tags: TAGS, summary: 'Issue a cash receipt',
      description: 'Accepts a cash receipt for the merchant that `Supplier-Key` names and ' +
        'answers 202 with its `issuanceKey`; the tax authority\'s approval follows ' +
        'asynchronously (CASH_RECEIPT_ISSUED or CASH_RECEIPT_FAILED webhooks, ' +
        'GET /v1/cashReceipts/{issuanceKey}). `Service-Client-Reference-Id` is required: the ' +
        'same value with the same content answers the same `issuanceKey` again without ' +
        'issuing or charging twice; with other content, or a value used for a cancellation, ' +
        '409 IDEMPOTENCY_CONFLICT. Charges the `cashReceipts.issue` price, refunded if the ' +
        'authority does not approve it.',
      headers: IssueHeaders, body: IssueBody,
      response: { 202: CashReceiptAccepted,
        ...errorResponses(...ISSUE_ERRORS) },
    },
  }, async (request, reply) => {
    const accepted = await cashReceipts.issue({ caller: requestCaller(request),
      supplierKey: request.headers['supplier-key'],
      referenceId: request.headers['service-client-reference-id'], body: request.body });
    return reply.code(202).send(accepted);
  });

  app.post('/cashReceipts::validate', {
    config: { operation: 'cashReceipts.validate' },
    schema: {
      operationId: 'validateCashReceipt', tags: TAGS, summary: 'Validate a cash receipt',
      description: 'Runs everything POST /v1/cashReceipts/issue runs, with the same headers ' +
        'and body, short of its effect: the body\'s checks, the merchant, the reference id ' +
        '(a replay is reported in `replayOf`, other content is 409 IDEMPOTENCY_CONFLICT) and ' +
        'the points available for the price. Answers the receipt that would be issued, or ' +
        'exactly the error issuance would give. Free: nothing is charged, recorded or claimed.',
      headers: IssueHeaders, body: IssueBody,
      response: { 200: IssueValidation,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS,
          'INVALID_BUSINESS_REGISTRATION_NUMBER', 'ISSUER_DEACTIVATED') },
    },
  }, async (request) => cashReceipts.validateIssuance({ caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'], body: request.body }));

  app.get('/cashReceipts/issue/status', {
    config: { operation: 'cashReceipts.status' },
    schema: {
      operationId: 'getCashReceiptRequestStatus', tags: TAGS,
      summary: 'Status of a request by client reference id',
      description: 'The processing status of the issuance or cancellation this key made ' +
        'with the `Service-Client-Reference-Id`. A value this key never used ' +
        'finds what a dashboard user of the key\'s account and environment made with it (the ' +
        'reference id the dashboard shows); else 404 NOT_FOUND.',
      querystring: StatusQuery,
      response: { 200: ReferenceStatus,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING, 'NOT_FOUND') },
    },
  }, async (request) => cashReceipts.statusByReference({ caller: requestCaller(request),
    referenceId: request.query.clientReferenceId }));

};

const registerRetrieval: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.get('/cashReceipts', {
    config: { operation: 'cashReceipts.list' },
    schema: {
      operationId: 'listCashReceipts', tags: TAGS, summary: 'List cash receipts',
      description: 'Receipts and cancellations of this account and environment in the order ' +
        'they were made, filtered by trade date range, status and kind, paged with an opaque ' +
        'cursor.',
      querystring: ListQuery,
      response: { 200: CashReceiptPage,
        ...errorResponses(...COMMON_ERRORS, INPUT_CHECKED_AFTER_COUNTING) },
    },
  }, async (request) => {
    const { limit, cursor, ...filters } = request.query;
    return withHasMore(await cashReceipts.list({ scope: requestScope(request), limit, cursor,
      filters }));
  });

  app.get('/cashReceipts/:issuanceKey', {
    config: { operation: 'cashReceipts.get' },
    schema: {
      operationId: 'getCashReceipt', tags: TAGS, summary: 'Get a cash receipt',
      description: 'The receipt or cancellation in any state; `approvalNumber` is null until ' +
        'the tax authority approves it. The identity number is masked.',
      params: IssuanceKeyParams,
      response: { 200: CashReceipt, ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND') },
    },
  }, async (request) => cashReceipts.get({ scope: requestScope(request), ...request.params }));

  app.get('/cashReceipts/:issuanceKey/pdf', {
    config: { operation: 'cashReceipts.pdf' },
    schema: {
      operationId: 'getCashReceiptPdf', tags: TAGS, summary: 'Download a cash receipt as PDF',
      description: 'The receipt as a Korean receipt slip: approval number, merchant, amounts, ' +
        'usage and the masked identity number. Sandbox receipts carry a SANDBOX mark.',
      params: IssuanceKeyParams,
      response: {
        200: PDF_RESPONSE,
        ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND'),
      },
    },
  }, async (request, reply) => {
    const pdf = await cashReceipts.pdf({ scope: requestScope(request), ...request.params });
    return sendPdf(reply, request.params.issuanceKey, pdf);
  });

};

const registerCancel: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.post('/cashReceipts/:issuanceKey/cancel', {
    config: { operation: 'cashReceipts.cancel' },
    schema: {
      operationId: 'cancelCashReceipt', tags: TAGS, summary: 'Cancel a cash receipt',
      description: 'Accepts a cancellation receipt for an ISSUED or TRANSMITTED receipt and ' +
        'answers 202 with the cancellation\'s `issuanceKey`. Without amounts it cancels what ' +
        'remains; with supplyCost, tax, serviceFee and totalAmount it cancels that part. The ' +
        'cancellations of a receipt never exceed it (409 ' +
        'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING); a receipt not yet issued, failed, or itself a ' +
        'cancellation is 409 CASH_RECEIPT_NOT_CANCELABLE. Its own required ' +
        '`Service-Client-Reference-Id` replays or conflicts as for issuance. Charges the ' +
        '`cashReceipts.cancel` price, refunded if the authority does not approve it.',
      headers: CancelHeaders, params: IssuanceKeyParams, body: CancelBody,
      response: { 202: CashReceiptAccepted,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS, 'CASH_RECEIPT_NOT_CANCELABLE',
          'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING') },
    },
  }, async (request, reply) => {
    const accepted = await cashReceipts.cancel({ caller: requestCaller(request),
      issuanceKey: request.params.issuanceKey,
      referenceId: request.headers['service-client-reference-id'], body: request.body });
    return reply.code(202).send(accepted);
  });
};

export const cashReceiptRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerIssuance, options);
  await app.register(registerRetrieval, options);
  await app.register(registerCancel, options);
};
