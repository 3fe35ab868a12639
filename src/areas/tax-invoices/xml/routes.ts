import { type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../../platform/error-responses.ts';
import { requestScope } from '../../../platform/scope.ts';
import { COMMON_ERRORS } from '../route-errors.ts';
import { IssuanceKeyParams } from '../schemas.ts';
import type { XmlService } from './service.ts';

// The signed standard XML of a tax invoice under /v1 (docs/tax-invoice-xml.md).

type Options = { xml: XmlService };

export const xmlRoutes: FastifyPluginAsyncTypebox<Options> = async (app, { xml }) => {
  app.get('/taxInvoices/:issuanceKey/xml', {
    config: { operation: 'taxInvoices.xml' },
    schema: {
      operationId: 'getTaxInvoiceXml', tags: ['Tax invoices'],
      summary: 'Download the signed standard XML',
      description: 'The e-tax-invoice standard XML (KEC/NTS `TaxInvoice`) the supplier signed ' +
        'when the document was issued, with its enveloped XML-DSig signature (RSA-SHA256, the ' +
        'certificate in KeyInfo) and its approval number as IssueID: the document transmitted ' +
        'to the tax authority. 409 TAX_INVOICE_NOT_SIGNED until it is issued, and for a ' +
        'document that ended before issuance.',
      params: IssuanceKeyParams,
      response: {
        // Only the document is XML; the errors are JSON like every other operation's.
        200: {
          description: 'The signed XML, UTF-8.',
          headers: { 'Content-Disposition': Type.String({
            description: 'Named after the document: `inline; filename="<issuanceKey>.xml"`.' }) },
          content: { 'application/xml': { schema: Type.String({
            description: 'The signed TaxInvoice document.' }) } },
        },
        ...errorResponses(...COMMON_ERRORS, 'NOT_FOUND', 'TAX_INVOICE_NOT_SIGNED'),
      },
    },
  }, async (request, reply) => {
    const document = await xml.signedXml({ scope: requestScope(request), ...request.params });
    return reply.type('application/xml; charset=utf-8')
      .header('content-disposition', `inline; filename="${request.params.issuanceKey}.xml"`)
      .send(document);
  });
};
