CREATE SEQUENCE "public"."tax_invoice_approval_serials" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
ALTER TABLE "tax_invoices" DROP CONSTRAINT "tax_invoices_transmitted_has_approval_number";--> statement-breakpoint
ALTER TABLE "tax_invoices" ADD CONSTRAINT "tax_invoices_transmitted_has_approval_number" CHECK ("tax_invoices"."status" <> 'TRANSMITTED'
      or "tax_invoices"."nts_transaction_id" ~ '^[0-9]{16}[0-9a-z]{8}$');