CREATE TABLE "tax_invoice_attachments" (
	"id" text PRIMARY KEY NOT NULL,
	"issuance_key" text NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"file_name" text NOT NULL,
	"content_type" text NOT NULL,
	"size_bytes" integer NOT NULL,
	"sha256" text NOT NULL,
	"content" "bytea" NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"sequence" bigserial NOT NULL,
	CONSTRAINT "tax_invoice_attachments_environment_known" CHECK ("tax_invoice_attachments"."environment" in ('test', 'live')),
	CONSTRAINT "tax_invoice_attachments_size" CHECK ("tax_invoice_attachments"."size_bytes" > 0
      and "tax_invoice_attachments"."size_bytes" = octet_length("tax_invoice_attachments"."content"))
);
--> statement-breakpoint
ALTER TABLE "tax_invoice_attachments" ADD CONSTRAINT "tax_invoice_attachments_issuance_key_tax_invoices_issuance_key_fk" FOREIGN KEY ("issuance_key") REFERENCES "public"."tax_invoices"("issuance_key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tax_invoice_attachments_invoice_idx" ON "tax_invoice_attachments" USING btree ("account_id","environment","issuance_key","sequence");