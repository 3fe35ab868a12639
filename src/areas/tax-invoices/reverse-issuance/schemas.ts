import { Type, type Static } from '@fastify/type-provider-typebox';
import { PRINTABLE, SupplierKeyValue } from '../schemas.ts';

// Request and response schemas of the reverse issuance routes (docs/reverse-issuance.md). The
// request itself takes the issuance body and headers of ../schemas.ts.

// A refusal reason is at most this long, in the API and in the approval page's form: it becomes
// the request's failure message.
export const REFUSAL_REASON_LENGTH_MAX = 200;

// The supplier who decides: its Supplier-Key must name the request's supplier.
export const SupplierHeaders = Type.Object({ 'supplier-key': SupplierKeyValue });

export const ApprovalUrl = Type.Object(
  {
    url: Type.String({ format: 'uri', description: 'The approval page, for the supplier to ' +
      'open (a new tab or a redirect). It works once, for ten minutes.' }),
    expiresAt: Type.String({ format: 'date-time', description: 'When the link stops working.' }),
  },
  { title: 'ReverseIssuanceApprovalUrl', description: 'A one-time approval page.',
    additionalProperties: false,
    examples: [{ url: 'https://etax.example.com/taxInvoices/issueRequests/approval/' +
      'q3Xv0tqgYV8hR1m4wC9bq0bJ6y3n5S2kD7eLrZpA1uE', expiresAt: '2026-11-20T05:10:00.000Z' }] },
);

export const RefusalBody = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: REFUSAL_REASON_LENGTH_MAX,
      pattern: PRINTABLE,
      description: 'Why the supplier refuses; the requester reads it as `failure.message` of ' +
        'the tax invoice.', examples: ['공급가액이 계약과 다릅니다.'] })),
  },
  { title: 'ReverseIssuanceRefusal', additionalProperties: false },
);
export type RefusalBody = Static<typeof RefusalBody>;

export const Decided = (status: 'APPROVED' | 'REFUSED') => Type.Object(
  { issuanceKey: Type.String(), status: Type.Literal(status) },
  { title: `ReverseIssuance${status === 'APPROVED' ? 'Approved' : 'Refused'}`,
    description: `The reverse issuance request, now ${status}.`,
    additionalProperties: false },
);

export const Canceled = Type.Object(
  { issuanceKey: Type.String({ description: 'The key of the canceled request.' }) },
  { title: 'ReverseIssuanceCanceled', description: 'The reverse issuance request, now ' +
    'REQUEST_CANCELED.', additionalProperties: false,
    examples: [{ issuanceKey: 'txi_8D529FAD3EBAE050B79CE943CC' }] },
);
