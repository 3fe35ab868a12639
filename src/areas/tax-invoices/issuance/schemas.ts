import { Type } from '@fastify/type-provider-typebox';
import { TaxInvoice } from '../retrieval/schemas.ts';

// Request and response schemas of the issuance routes (docs/tax-invoices.md) besides the issue
// request's headers and body, which are shared with the other requests that make documents
// (../schemas.ts): what validation answers, the document's fields as retrieval answers them.

// What POST /v1/taxInvoices:validate answers: the documents issuance would record, as etax
// computes them, and what issuing them would charge.
export const IssueValidation = Type.Object(
  {
    valid: Type.Literal(true, { description: 'Always true: a request issuance would refuse ' +
      'is answered with the error issuance would give instead.' }),
    supplier: Type.Object({
      issuerId: Type.String({ description: 'The issuer `Supplier-Key` names.' }),
      identificationNumber: Type.String({ description: 'Its business registration number; ' +
        'its registration status allows these documents.' }),
    }, { additionalProperties: false }),
    documents: Type.Array(Type.Object({
      invoice: TaxInvoice.properties.invoice,
      taxType: TaxInvoice.properties.taxType,
      totals: TaxInvoice.properties.totals,
      issueDeadline: TaxInvoice.properties.issueDeadline,
      lateIssuance: TaxInvoice.properties.lateIssuance,
      lateIssuancePenalty: TaxInvoice.properties.lateIssuancePenalty,
    }, { additionalProperties: false }), { minItems: 1, maxItems: 1,
      description: 'The document issuance would record, with the totals and tax as etax ' +
        'computes them, its issue deadline and whether it would be late.' }),
    price: Type.Object({
      operation: Type.Literal('taxInvoices.issue', { description: 'The price row.' }),
      points: Type.Integer({ minimum: 0, description: 'What issuing it would charge now; ' +
        'the balance covers it.' }),
    }, { additionalProperties: false }),
  },
  { title: 'TaxInvoiceIssueValidation', description: 'What issuing this request would do. ' +
    'Nothing was charged, recorded or claimed.', additionalProperties: false },
);
