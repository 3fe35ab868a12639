import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';

// A document's PDF as an operation answers it (tax invoices, cash receipts, documents): the
// bytes, shown in the browser and named after the document's issuance key. Only the document is
// a PDF; the errors are JSON like every other operation's. A Buffer is sent as it is, never
// serialized.

export const PDF_RESPONSE = {
  description: 'The PDF.',
  headers: { 'Content-Disposition': Type.String({
    description: 'Shown in the browser, named after the document: ' +
      '`inline; filename="<issuanceKey>.pdf"`.' }) },
  content: { 'application/pdf': { schema: Type.Unsafe<Buffer>({ type: 'string',
    format: 'binary', contentMediaType: 'application/pdf' }) } },
};

export function sendPdf(reply: FastifyReply, issuanceKey: string, pdf: Buffer) {
  return reply.type('application/pdf')
    .header('content-disposition', `inline; filename="${issuanceKey}.pdf"`)
    .send(pdf);
}
