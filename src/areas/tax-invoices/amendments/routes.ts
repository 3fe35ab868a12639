import {
  type FastifyPluginAsyncTypebox,
  type Static,
  type TSchema,
} from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { acceptEmptyJsonBodies } from '../../../platform/bodyless.ts';
import { errorResponses } from '../../../platform/error-responses.ts';
import { requestCaller } from '../../../platform/scope.ts';
import { ACCEPTANCE_ERRORS, COMMON_ERRORS } from '../route-errors.ts';
import { IssuanceKeyParams, IssueHeaders } from '../schemas.ts';
import type { Operation } from '../../../platform/operations.ts';
import type { AmendmentRequest } from './draft.ts';
import {
  AmendmentValidation,
  EntryCorrectionBody,
  LocalLetterOfCreditBody,
  OneDocumentAccepted,
  ReturnedGoodsBody,
  SupplyCostChangeBody,
  TerminationBody,
  TwoDocumentsAccepted,
} from './schemas.ts';
import type { AmendInput, AmendmentService } from './service.ts';

// Amendments (수정발행) under /v1/taxInvoices/{issuanceKey}/amend/…, one route per reason
// (docs/tax-invoice-amendments.md), whose rule is in the file named after it: termination.ts,
// entry-correction.ts, double-issuance.ts, supply-cost-change.ts, returned-goods.ts and
// local-letter-of-credit.ts. Handlers only translate: the caller, the original's key and the
// body in, the new documents' keys out.

const TAGS = ['Tax invoice amendments'];

// What every amendment route tells clients besides its own paragraph.
const COMMON_DESCRIPTION = ' `Supplier-Key` must name the supplier of the tax invoice amended; ' +
  'a tax invoice of another supplier, account or environment is 404 NOT_FOUND. Only a ' +
  'TRANSMITTED tax invoice can be amended (409 TAX_INVOICE_NOT_AMENDABLE), and not once an ' +
  'amendment in effect rules it out (409 TAX_INVOICE_ALREADY_AMENDED). Each document made is ' +
  'charged the `taxInvoices.issue` price and is signed and transmitted like an issued tax ' +
  'invoice; read it with GET /v1/taxInvoices/{issuanceKey}. A `Service-Client-Reference-Id` ' +
  'can never be used again by this key for any tax invoice request (400 INVALID_REQUEST).';

const AMENDMENT_ERRORS = errorResponses(...COMMON_ERRORS, ...ACCEPTANCE_ERRORS,
  'TAX_INVOICE_NOT_AMENDABLE', 'TAX_INVOICE_ALREADY_AMENDED');

type AmendmentRequestContext = FastifyRequest & {
  params: Static<typeof IssuanceKeyParams>;
  headers: Static<typeof IssueHeaders>;
};

function requestOf(request: AmendmentRequestContext): Omit<AmendInput, 'request'> {
  return {
    caller: requestCaller(request),
    supplierKey: request.headers['supplier-key'],
    referenceId: request.headers['service-client-reference-id'],
    issuanceKey: request.params.issuanceKey,
  };
}

type Options = { amendments: AmendmentService };

const registerReversals: FastifyPluginAsyncTypebox<Options> = async (app, { amendments }) => {
  app.post('/taxInvoices/:issuanceKey/amend/termination', {
    config: { operation: 'taxInvoices.amend.termination' },
    schema: {
      operationId: 'amendTaxInvoiceForTermination', tags: TAGS,
      summary: 'Amend for a terminated contract (계약의 해제)',
      description: 'Reason code 4. Makes one document: the tax invoice with every amount and ' +
        'quantity negated, written on the termination date (`date`, also every item\'s ' +
        'date). Refused for a tax invoice with a negative item.' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams, body: TerminationBody,
      response: { 200: OneDocumentAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'TERMINATION', ...request.body } }));

  app.post('/taxInvoices/:issuanceKey/amend/entryCorrection', {
    config: { operation: 'taxInvoices.amend.entryCorrection' },
    schema: {
      operationId: 'amendTaxInvoiceForEntryCorrection', tags: TAGS,
      summary: 'Amend for an entry made by mistake (기재사항 착오정정)',
      description: 'Reason code 1. Makes two documents: the tax invoice with every amount and ' +
        'quantity negated, with its write date, then `invoice`, the corrected tax invoice, ' +
        'with the write date it gives (the original\'s or the correct one). The corrected ' +
        'invoice is checked as an issuance is, except for the issue deadline; its supplier ' +
        'must be the same business, its tax type the same, and it must differ from the ' +
        'original.' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams, body: EntryCorrectionBody,
      response: { 200: TwoDocumentsAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'ENTRY_CORRECTION', invoice: request.body.invoice } }));
};

// Double issuance takes no body; its own plugin keeps the empty-body parser away from the
// other routes.
const registerDoubleIssuance: FastifyPluginAsyncTypebox<Options> = async (app, { amendments }) => {
  acceptEmptyJsonBodies(app);

  app.post('/taxInvoices/:issuanceKey/amend/doubleIssuance', {
    config: { operation: 'taxInvoices.amend.doubleIssuance', body: 'none' },
    schema: {
      operationId: 'amendTaxInvoiceForDoubleIssuance', tags: TAGS,
      summary: 'Amend a duplicate issued by mistake (착오에 의한 이중발급)',
      description: 'Reason code 6. The path names the duplicate. Makes one document: the ' +
        'duplicate with every amount and quantity negated, with its write date. Also for a ' +
        'tax invoice issued as the wrong type (taxable or tax-exempt): reverse it here, then ' +
        'issue the right one. Body: none (an empty body or `{}` is ignored, anything else is ' +
        '400).' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams,
      response: { 200: OneDocumentAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'DOUBLE_ISSUANCE' } }));
};

const registerPartialAmendments: FastifyPluginAsyncTypebox<Options> = async (
  app,
  { amendments },
) => {
  app.post('/taxInvoices/:issuanceKey/amend/changeSupplyCost', {
    config: { operation: 'taxInvoices.amend.changeSupplyCost' },
    schema: {
      operationId: 'amendTaxInvoiceForSupplyCostChange', tags: TAGS,
      summary: 'Amend for a change of supply cost (공급가액 변동)',
      description: 'Reason code 2. Makes one document holding only the difference: `items` ' +
        'as sent, positive for an increase and negative for a decrease, written on the date ' +
        'of the change, with the original\'s write date in the remark. Repeatable; what ' +
        'remains of the original may not fall below 0.' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams, body: SupplyCostChangeBody,
      response: { 200: OneDocumentAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'SUPPLY_COST_CHANGE', ...request.body } }));

  app.post('/taxInvoices/:issuanceKey/amend/returnedGoods', {
    config: { operation: 'taxInvoices.amend.returnedGoods' },
    schema: {
      operationId: 'amendTaxInvoiceForReturnedGoods', tags: TAGS,
      summary: 'Amend for returned goods (환입)',
      description: 'Reason code 3. Send the returned goods in positive amounts; the one ' +
        'document made carries them negated (amounts and quantities), written on the return ' +
        'date, with the original\'s write date in the remark. Repeatable; what remains of ' +
        'the original may not fall below 0.' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams, body: ReturnedGoodsBody,
      response: { 200: OneDocumentAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'RETURNED_GOODS', ...request.body } }));

  app.post('/taxInvoices/:issuanceKey/amend/localLetterOfCredit', {
    config: { operation: 'taxInvoices.amend.localLetterOfCredit' },
    schema: {
      operationId: 'amendTaxInvoiceForLocalLetterOfCredit', tags: TAGS,
      summary: 'Amend for a local letter of credit opened later (내국신용장 사후개설)',
      description: 'Reason code 5, for a taxable tax invoice. Makes two documents with the ' +
        'original\'s write date and the opening date in the remark: the covered items with ' +
        'amounts and quantities negated, then the same items zero-rated (tax 0). Once per ' +
        'tax invoice.' + COMMON_DESCRIPTION,
      headers: IssueHeaders, params: IssuanceKeyParams, body: LocalLetterOfCreditBody,
      response: { 200: TwoDocumentsAccepted, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.amend({ ...requestOf(request),
    request: { reason: 'LOCAL_LETTER_OF_CREDIT', ...request.body } }));
};

// Each amendment route's validation: the same path, headers and body, answered with what the
// amendment would make (the preview of agents, docs/mcp.md) or the error it would give.
type Validation = {
  segment: string;
  operation: Operation;
  operationId: string;
  summary: string;
  body: TSchema | null;
  request(body: unknown): AmendmentRequest;
};

const VALIDATIONS: readonly Validation[] = [
  { segment: 'termination', operation: 'taxInvoices.amend.termination.validate',
    operationId: 'validateTaxInvoiceAmendmentForTermination', body: TerminationBody,
    summary: 'Validate an amendment for a terminated contract',
    request: (body) => ({ reason: 'TERMINATION', ...body as Static<typeof TerminationBody> }) },
  { segment: 'entryCorrection', operation: 'taxInvoices.amend.entryCorrection.validate',
    operationId: 'validateTaxInvoiceAmendmentForEntryCorrection', body: EntryCorrectionBody,
    summary: 'Validate an amendment for an entry made by mistake',
    request: (body) => ({ reason: 'ENTRY_CORRECTION',
      invoice: (body as Static<typeof EntryCorrectionBody>).invoice }) },
  { segment: 'doubleIssuance', operation: 'taxInvoices.amend.doubleIssuance.validate',
    operationId: 'validateTaxInvoiceAmendmentForDoubleIssuance', body: null,
    summary: 'Validate an amendment of a duplicate issued by mistake',
    request: () => ({ reason: 'DOUBLE_ISSUANCE' }) },
  { segment: 'changeSupplyCost', operation: 'taxInvoices.amend.changeSupplyCost.validate',
    operationId: 'validateTaxInvoiceAmendmentForSupplyCostChange', body: SupplyCostChangeBody,
    summary: 'Validate an amendment for a change of supply cost',
    request: (body) => ({ reason: 'SUPPLY_COST_CHANGE',
      ...body as Static<typeof SupplyCostChangeBody> }) },
  { segment: 'returnedGoods', operation: 'taxInvoices.amend.returnedGoods.validate',
    operationId: 'validateTaxInvoiceAmendmentForReturnedGoods', body: ReturnedGoodsBody,
    summary: 'Validate an amendment for returned goods',
    request: (body) => ({ reason: 'RETURNED_GOODS',
      ...body as Static<typeof ReturnedGoodsBody> }) },
  { segment: 'localLetterOfCredit', operation: 'taxInvoices.amend.localLetterOfCredit.validate',
    operationId: 'validateTaxInvoiceAmendmentForLocalLetterOfCredit',
    body: LocalLetterOfCreditBody,
    summary: 'Validate an amendment for a local letter of credit opened later',
    request: (body) => ({ reason: 'LOCAL_LETTER_OF_CREDIT',
      ...body as Static<typeof LocalLetterOfCreditBody> }) },
];

function registerValidation(app: Parameters<FastifyPluginAsyncTypebox<Options>>[0],
  amendments: AmendmentService, validation: Validation) {
  app.post(`/taxInvoices/:issuanceKey/amendments/${validation.segment}::validate`, {
    config: { operation: validation.operation,
      ...(validation.body === null ? { body: 'none' as const } : {}) },
    schema: {
      operationId: validation.operationId, tags: TAGS, summary: validation.summary,
      description: `Runs everything POST /v1/taxInvoices/{issuanceKey}/amend/` +
        `${validation.segment} runs, with the same headers, path and body, short of its ` +
        'effect: the original and its amendments so far, the documents drafted by the ' +
        'reason\'s rule, the supplier\'s eligibility, the points available for the price and ' +
        'whether `Service-Client-Reference-Id` is still unused. Answers the documents the ' +
        'amendment would make, or exactly the error it would give. Free: nothing is charged, ' +
        'recorded or claimed.',
      headers: IssueHeaders, params: IssuanceKeyParams,
      ...(validation.body === null ? {} : { body: validation.body }),
      response: { 200: AmendmentValidation, ...AMENDMENT_ERRORS },
    },
  }, async (request) => amendments.validateAmendment({
    ...requestOf(request as AmendmentRequestContext),
    request: validation.request(request.body) }));
}

// Double issuance's takes no body, as its amendment: in a plugin of its own, which keeps the
// empty-body parser away from the others.
const registerValidations: FastifyPluginAsyncTypebox<Options> = async (app, { amendments }) => {
  for (const validation of VALIDATIONS.filter((entry) => entry.body !== null)) {
    registerValidation(app, amendments, validation);
  }
  await app.register(async (bodyless) => {
    acceptEmptyJsonBodies(bodyless);
    for (const validation of VALIDATIONS.filter((entry) => entry.body === null)) {
      registerValidation(bodyless as typeof app, amendments, validation);
    }
  });
};

export const amendmentRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  await app.register(registerReversals, options);
  await app.register(registerDoubleIssuance, options);
  await app.register(registerPartialAmendments, options);
  await app.register(registerValidations, options);
};
