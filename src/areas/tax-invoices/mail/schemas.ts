import { Type, type Static } from '@fastify/type-provider-typebox';

// The resend operation's body and answer (docs/tax-invoices.md § The recipient's mail).

export const ResendEmailBody = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', minLength: 3, maxLength: 100,
      description: 'Send to this address only, instead of the recipient\'s managers (To the ' +
        'first, Cc the second and the supplier\'s copy when asked).',
      examples: ['accounting@example.com'] })),
  },
  { title: 'TaxInvoiceResendEmailBody', additionalProperties: false,
    examples: [{}, { email: 'accounting@example.com' }] },
);
export type ResendEmailBody = Static<typeof ResendEmailBody>;

export const EmailQueued = Type.Object(
  {
    issuanceKey: Type.String(),
    mailId: Type.String({ description: 'The mail; TAX_INVOICE_EMAIL_SENT or _FAILED name it.' }),
    to: Type.String({ description: 'Where the invoice is sent.' }),
    cc: Type.Array(Type.String(), { description: 'The addresses copied, possibly none.' }),
  },
  { title: 'TaxInvoiceEmailQueued', description: 'The mail, queued: it is sent with the PDF ' +
    'attached, and its delivery or bounce is a webhook event.', additionalProperties: false,
  examples: [{ issuanceKey: 'txi_8D529FAD3EBAE050B79CE943CC', mailId: 'mail_4mQ1c0Qh2sW8yZ3nR5tVbg',
    to: 'account@example.com', cc: [] }] },
);
