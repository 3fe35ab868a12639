import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../platform/error-responses.ts';
import { requestCaller } from '../../../platform/scope.ts';
import { ACCEPTANCE_ERRORS, COMMON_ERRORS, ISSUE_ERRORS } from '../route-errors.ts';
import {
  CancelBody,
  CancelHeaders,
  CancelValidation,
  CashReceiptAccepted,
  IssuanceKeyParams,
  IssueBody,
  IssueHeaders,
  IssueValidation,
} from '../schemas.ts';
import type { IssuanceService } from './service.ts';

// Cash receipt issuance under /v1 (docs/cash-receipts.md): issue, validate, cancel. Handlers only
// translate: the caller in, the service's answer out, 202 for accepted requests.

type Options = { cashReceipts: IssuanceService };

const registerIssuance: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.post('/cashReceipts/issue', {
    config: { operation: 'cashReceipts.issue' },
    schema: {
      operationId: 'issueCashReceipt', summary: 'Issue a cash receipt',
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
      operationId: 'validateCashReceipt', summary: 'Validate a cash receipt',
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

};

const registerCancel: FastifyPluginAsyncTypebox<Options> = async (app, { cashReceipts }) => {
  app.post('/cashReceipts/:issuanceKey/cancel', {
    config: { operation: 'cashReceipts.cancel' },
    schema: {
      operationId: 'cancelCashReceipt', summary: 'Cancel a cash receipt',
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

// The cancel route's checks without its effect: the preview of agents (docs/mcp.md).
const registerCancelValidation: FastifyPluginAsyncTypebox<Options> = async (app,
  { cashReceipts }) => {
  app.post('/cashReceipts/:issuanceKey/cancellations::validate', {
    config: { operation: 'cashReceipts.cancel.validate' },
    schema: {
      operationId: 'validateCashReceiptCancellation',
      summary: 'Validate a cash receipt cancellation',
      description: 'Runs everything POST /v1/cashReceipts/{issuanceKey}/cancel runs, with the ' +
        'same headers, path and body, short of its effect: the reference id (a replay is ' +
        'reported in `replayOf`, other content is 409 IDEMPOTENCY_CONFLICT), the amounts, the ' +
        'receipt and what remains of it, and the points available for the price. Answers the ' +
        'cancellation receipt that would be issued, or exactly the error the cancellation ' +
        'would give. Free: nothing is charged, recorded or claimed.',
      headers: CancelHeaders, params: IssuanceKeyParams, body: CancelBody,
      response: { 200: CancelValidation,
        ...errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS, 'CASH_RECEIPT_NOT_CANCELABLE',
          'CASH_RECEIPT_CANCEL_EXCEEDS_REMAINING') },
    },
  }, async (request) => cashReceipts.validateCancel({ caller: requestCaller(request),
    issuanceKey: request.params.issuanceKey,
    referenceId: request.headers['service-client-reference-id'], body: request.body }));
};

// Issuing: the issue request and its validation. Cancel is registered on its own, after the
// retrieval routes (../index.ts), so the OpenAPI document keeps its order.
export const issuanceRoutes: FastifyPluginAsyncTypebox<Options> = registerIssuance;
export const cancelRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerCancel, options);
  await app.register(registerCancelValidation, options);
};
