import { pgSequence, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt } from '../../../platform/db/columns.ts';
import { taxInvoices } from '../tables.ts';

// The signed standard XML of each issued document (docs/tax-invoice-xml.md), written in the
// transaction that moves the document to ISSUED, and never changed: it is what was signed and
// what is transmitted. Documents issued before the XML existed have no row.
export const taxInvoiceXmlDocuments = pgTable(
  'tax_invoice_xml_documents',
  {
    issuanceKey: text('issuance_key').primaryKey().references(() => taxInvoices.issuanceKey),
    // The approval number given at issuance, the document's IssueID.
    approvalNumber: text('approval_number').notNull(),
    signedXml: text('signed_xml').notNull(),
    // The certificate that signed it (DER, base64), sent beside it in a transmission. Kept here,
    // written once, rather than on the document's row, which each status change rewrites: without
    // it that row stays small enough to be rewritten without compressing anything. Null for
    // documents signed before it was kept here; theirs is on the document's row.
    signingCertificate: text('signing_certificate'),
    createdAt: createdAt(),
  },
  (table) => [
    uniqueIndex('tax_invoice_xml_documents_approval_number_idx').on(table.approvalNumber),
  ],
);

// The counter behind approval numbers' serials (src/domain/approval-number.ts): never reused, so
// two numbers of one day never share a serial. The issuance job takes the values of a whole fetch
// in one statement (xml/store.ts); the gaps a failed fetch leaves are harmless.
export const approvalSerials = pgSequence('tax_invoice_approval_serials', { startWith: 1 });
