CREATE TABLE "tax_invoice_status_changes" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"issuance_key" text NOT NULL,
	"from_status" text,
	"to_status" text NOT NULL,
	"actor" text NOT NULL,
	"message" text,
	"occurred_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tax_invoices" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"api_key_id" text NOT NULL,
	"client_reference_id" text,
	"issuer_id" text NOT NULL,
	"supplier_key" text NOT NULL,
	"issuance_type" text NOT NULL,
	"status" text NOT NULL,
	"invoice" jsonb NOT NULL,
	"write_date" date NOT NULL,
	"issue_deadline" date NOT NULL,
	"counterpart_number" text NOT NULL,
	"tax_type" text NOT NULL,
	"supply_cost_total" bigint NOT NULL,
	"tax_total" bigint NOT NULL,
	"total_amount" bigint NOT NULL,
	"charged_points" integer NOT NULL,
	"reservation_id" text,
	"amendment_reason" integer,
	"original_issuance_key" text,
	"original_nts_transaction_id" text,
	"request_group" text,
	"signed_digest" text,
	"signature" text,
	"signing_certificate" text,
	"nts_transaction_id" text,
	"failure_code" text,
	"failure_message" text,
	"issued_at" timestamp with time zone,
	"transmitted_at" timestamp with time zone,
	"sequence" bigserial NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tax_invoices_environment_known" CHECK ("tax_invoices"."environment" in ('test', 'live')),
	CONSTRAINT "tax_invoices_issuance_type_known" CHECK ("tax_invoices"."issuance_type" in ('STANDARD', 'REVERSE')),
	CONSTRAINT "tax_invoices_status_known" CHECK ("tax_invoices"."status" in ('REQUESTED', 'APPROVED',
      'REFUSED', 'REQUEST_CANCELED', 'PENDING', 'ISSUED', 'TRANSMITTING', 'TRANSMITTED',
      'CANCELED', 'FAILED')),
	CONSTRAINT "tax_invoices_tax_type_known" CHECK ("tax_invoices"."tax_type" in ('TAXABLE', 'TAX_FREE')),
	CONSTRAINT "tax_invoices_amendment_reason" CHECK ("tax_invoices"."amendment_reason" between 1 and 6),
	CONSTRAINT "tax_invoices_amendment_names_original" CHECK (("tax_invoices"."amendment_reason" is null) =
      ("tax_invoices"."original_issuance_key" is null)),
	CONSTRAINT "tax_invoices_total" CHECK ("tax_invoices"."total_amount" =
      "tax_invoices"."supply_cost_total" + "tax_invoices"."tax_total"),
	CONSTRAINT "tax_invoices_charged_points" CHECK ("tax_invoices"."charged_points" >= 0),
	CONSTRAINT "tax_invoices_transmitted_has_approval_number" CHECK ("tax_invoices"."status" <> 'TRANSMITTED'
      or "tax_invoices"."nts_transaction_id" ~ '^[0-9]{24}$')
);
--> statement-breakpoint
ALTER TABLE "point_ledger_entries" DROP CONSTRAINT "point_ledger_entries_kind_known";--> statement-breakpoint
ALTER TABLE "tax_invoice_status_changes" ADD CONSTRAINT "tax_invoice_status_changes_issuance_key_tax_invoices_issuance_key_fk" FOREIGN KEY ("issuance_key") REFERENCES "public"."tax_invoices"("issuance_key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tax_invoice_status_changes_invoice_idx" ON "tax_invoice_status_changes" USING btree ("issuance_key","id");--> statement-breakpoint
CREATE INDEX "tax_invoices_scope_sequence_idx" ON "tax_invoices" USING btree ("account_id","environment","sequence");--> statement-breakpoint
CREATE INDEX "tax_invoices_scope_write_date_idx" ON "tax_invoices" USING btree ("account_id","environment","write_date","sequence");--> statement-breakpoint
CREATE INDEX "tax_invoices_reference_idx" ON "tax_invoices" USING btree ("api_key_id","client_reference_id") WHERE "tax_invoices"."client_reference_id" is not null;--> statement-breakpoint
CREATE INDEX "tax_invoices_original_idx" ON "tax_invoices" USING btree ("original_issuance_key");--> statement-breakpoint
ALTER TABLE "point_ledger_entries" ADD CONSTRAINT "point_ledger_entries_kind_known" CHECK ("point_ledger_entries"."kind" in ('grant', 'capture', 'refund'));