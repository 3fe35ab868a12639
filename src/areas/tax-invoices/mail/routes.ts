import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptEmptyJsonBodies } from '../../../platform/bodyless.ts';
import { BODY_ERRORS, errorResponses } from '../../../platform/error-responses.ts';
import { requestScope } from '../../../platform/scope.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { IssuanceKeyParams } from '../schemas.ts';
import { EmailQueued, ResendEmailBody } from './schemas.ts';
import type { InvoiceMailService } from './service.ts';

// Resending a tax invoice's mail under /v1 (docs/tax-invoices.md § The recipient's mail).

type Options = { invoiceMail: InvoiceMailService };

// The issuance key as a regular-expression parameter, so `:resendEmail` can follow it.
const ISSUANCE_KEY_PARAMETER = ':issuanceKey(^[^:/]+)';

export const invoiceMailRoutes: FastifyPluginAsyncTypebox<Options> = async (app, options) => {
  acceptEmptyJsonBodies(app);

  app.post(`/taxInvoices/${ISSUANCE_KEY_PARAMETER}::resendEmail`, {
    // The body may be left out: none at all reads as `{}`.
    config: { operation: 'taxInvoices.resendEmail', body: 'optional' },
    schema: {
      operationId: 'resendTaxInvoiceEmail', tags: ['Tax invoices'],
      summary: 'Mail a transmitted tax invoice again',
      description: 'Queues the recipient\'s mail of a TRANSMITTED tax invoice again, with the ' +
        'PDF attached: to the recipient\'s first manager with the second (and the supplier\'s ' +
        'manager when the invoice asked for it) in Cc, or only to `email` when given. 202; ' +
        'its delivery or bounce is TAX_INVOICE_EMAIL_SENT or _FAILED. An invoice not yet ' +
        'transmitted is 409 TAX_INVOICE_NOT_TRANSMITTED. Free. The body may be left out.',
      params: IssuanceKeyParams, body: ResendEmailBody,
      response: { 202: EmailQueued, ...errorResponses(...COMMON_ERRORS, ...BODY_ERRORS,
        'NOT_FOUND', 'TAX_INVOICE_NOT_TRANSMITTED') },
    },
  }, async (request, reply) => {
    const queued = await options.invoiceMail.resendEmail({ scope: requestScope(request),
      issuanceKey: request.params.issuanceKey, email: request.body.email });
    return reply.code(202).send(queued);
  });
};
