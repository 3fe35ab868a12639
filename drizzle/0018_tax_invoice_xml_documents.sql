CREATE TABLE "tax_invoice_xml_documents" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"approval_number" text NOT NULL,
	"signed_xml" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tax_invoice_xml_documents" ADD CONSTRAINT "tax_invoice_xml_documents_issuance_key_tax_invoices_issuance_key_fk" FOREIGN KEY ("issuance_key") REFERENCES "public"."tax_invoices"("issuance_key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tax_invoice_xml_documents_approval_number_idx" ON "tax_invoice_xml_documents" USING btree ("approval_number");