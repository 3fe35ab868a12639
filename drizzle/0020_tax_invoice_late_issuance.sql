-- Documents made before late issuance was accepted were all on time. The default fills them and
-- is dropped again, so that every new document states its own value.
ALTER TABLE "tax_invoices" ADD COLUMN "late_issuance" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "tax_invoices" ALTER COLUMN "late_issuance" DROP DEFAULT;
