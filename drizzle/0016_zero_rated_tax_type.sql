-- Zero-rated tax invoices (영세율, every item's tax 0) are a tax type of their own, beside taxable
-- and tax-exempt ones. Documents stored before keep the type they were signed with.
ALTER TABLE "tax_invoices" DROP CONSTRAINT "tax_invoices_tax_type_known";--> statement-breakpoint
ALTER TABLE "tax_invoices" ADD CONSTRAINT "tax_invoices_tax_type_known" CHECK ("tax_invoices"."tax_type" in ('TAXABLE', 'ZERO_RATED', 'TAX_FREE'));