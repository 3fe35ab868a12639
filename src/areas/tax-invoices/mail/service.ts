import type { Environment } from '../../../platform/accounts/keys.ts';
import type { Db, Executor } from '../../../platform/db/connect.ts';
import { ApiError } from '../../../platform/errors.ts';
import type { RecordEvents } from '../../../platform/events.ts';
import type { QueueMails } from '../../../platform/mail/outbox.ts';
import type { MailKindHooks } from '../../../platform/mail/send-job.ts';
import type { MailAttachment } from '../../../platform/mail/transport.ts';
import type { Scope } from '../../../platform/scope.ts';
import { pdfInputOfRow } from '../pdf/of-row.ts';
import * as store from '../store.ts';
import { invoiceMail, recipientsOf, type MailedInvoice } from './invoice-mail.ts';

// The recipient's mail of a tax invoice (docs/tax-invoices.md § The recipient's mail). It is
// queued in the transaction that records the approval number, so it exists exactly when the
// invoice was transmitted, amendments and approved reverse issuance requests included; the
// PDF is rendered when the mail is sent. Its delivery or bounce is a webhook event recorded
// in the transaction that settles the mail. A resend queues one more mail, free of charge.

export type InvoiceMailDeps = {
  db: Db;
  queueMails: QueueMails;
  recordEvents: RecordEvents;
  // The document's attachments (attachments/), mailed after its PDF.
  attachmentsOf: (issuanceKey: string) => Promise<MailAttachment[]>;
};

type ResendInput = { scope: Scope; issuanceKey: string; email?: string | undefined };

export function createInvoiceMailService(deps: InvoiceMailDeps) {
  // In the caller's transaction: one mail per document that was just transmitted.
  async function queueTransmitted(tx: Executor, transmitted: readonly MailedInvoice[]) {
    await deps.queueMails(tx, transmitted.map((row) =>
      invoiceMail(row, recipientsOf(row.invoice))));
  }

  async function resendEmail(input: ResendInput) {
    const row = await store.findInvoice(deps.db, input.scope, input.issuanceKey);
    if (row === null) throw new ApiError('NOT_FOUND', 'No tax invoice has this issuance key.');
    if (row.status !== 'TRANSMITTED' || row.ntsTransactionId === null) {
      throw new ApiError('TAX_INVOICE_NOT_TRANSMITTED', `The tax invoice is ${row.status}; ` +
        'it is mailed once it is TRANSMITTED and has its approval number.');
    }
    const recipients = input.email === undefined ? recipientsOf(row.invoice)
      : { to: input.email, cc: [] };
    const mail = invoiceMail({ ...row, ntsTransactionId: row.ntsTransactionId }, recipients);
    const [queued] = await deps.db.transaction((tx) => deps.queueMails(tx, [mail]));
    return { issuanceKey: row.issuanceKey, mailId: queued!.id, to: recipients.to,
      cc: recipients.cc };
  }

  // The hooks of the mail's kind: its PDF as the document is when sent, its attachments, and
  // its events.
  const hooks: MailKindHooks = {
    async attachments(mail) {
      const row = mail.reference === null ? null
        : await store.findInvoiceByKey(deps.db, mail.reference);
      if (row === null) return [];
      // pdfkit and the fonts load with the first PDF (docs/operations.md § Start-up).
      const { renderTaxInvoicePdf } = await import('../pdf/render.ts');
      return [{ filename: `${row.issuanceKey}.pdf`, contentType: 'application/pdf',
        content: await renderTaxInvoicePdf(pdfInputOfRow(row)) },
      ...await deps.attachmentsOf(row.issuanceKey)];
    },
    async settled(tx, mail, settlement) {
      if (mail.reference === null || mail.accountId === null || mail.environment === null) return;
      const scope = { accountId: mail.accountId, environment: mail.environment as Environment };
      const fields = { issuanceKey: mail.reference, mailId: mail.id, to: mail.recipient,
        cc: mail.cc };
      await deps.recordEvents(tx, [{ scope, event: settlement.status === 'SENT'
        ? { type: 'TAX_INVOICE_EMAIL_SENT',
          data: { ...fields, sentAt: settlement.sentAt.toISOString() } }
        : { type: 'TAX_INVOICE_EMAIL_FAILED',
          data: { ...fields, reason: settlement.lastError } } }]);
    },
  };

  return { queueTransmitted, resendEmail, hooks };
}

export type InvoiceMailService = ReturnType<typeof createInvoiceMailService>;
