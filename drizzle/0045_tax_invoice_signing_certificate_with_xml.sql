ALTER TABLE "tax_invoice_xml_documents" ADD COLUMN "signing_certificate" text;--> statement-breakpoint
-- The certificate of each document already signed as XML, beside its XML; the document's row
-- keeps its own copy, which documents signed from now on no longer get.
UPDATE "tax_invoice_xml_documents" x SET "signing_certificate" = t."signing_certificate"
  FROM "tax_invoices" t
 WHERE t."issuance_key" = x."issuance_key" AND x."signing_certificate" IS NULL;--> statement-breakpoint
-- The signed XML is stored as it is, out of line, rather than compressed: it is written once and
-- read once for its transmission, and compressing it cost more CPU than the space it saved.
ALTER TABLE "tax_invoice_xml_documents" ALTER COLUMN "signed_xml" SET STORAGE EXTERNAL;
