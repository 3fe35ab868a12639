CREATE TABLE "document_issuances" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"api_key_id" text NOT NULL,
	"client_reference_id" text NOT NULL,
	"type" text NOT NULL,
	"options" jsonb NOT NULL,
	"issuer_id" text,
	"corporation_number" text,
	"subject" jsonb NOT NULL,
	"status" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"reservation_id" text,
	"reserved_points" integer NOT NULL,
	"pending_checks" integer DEFAULT 0 NOT NULL,
	"issue_number" text,
	"pdf" "bytea",
	"pdf_sha256" text,
	"sequence" bigserial NOT NULL,
	"accepted_at" timestamp with time zone NOT NULL,
	"issued_at" timestamp with time zone,
	"failed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "document_issuances_environment_known" CHECK ("document_issuances"."environment" in ('test', 'live')),
	CONSTRAINT "document_issuances_status_known" CHECK ("document_issuances"."status" in ('ACCEPTED', 'PROCESSING', 'ISSUED', 'FAILED')),
	CONSTRAINT "document_issuances_issued_has_pdf" CHECK ("document_issuances"."status" <> 'ISSUED' or ("document_issuances"."pdf" is not null
        and "document_issuances"."pdf_sha256" is not null and "document_issuances"."issue_number" is not null
        and "document_issuances"."issued_at" is not null))
);
--> statement-breakpoint
CREATE TABLE "owner_businesses" (
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"issuer_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "owner_businesses_environment_known" CHECK ("owner_businesses"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE INDEX "document_issuances_scope_sequence_idx" ON "document_issuances" USING btree ("account_id","environment","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "owner_businesses_scope_unique" ON "owner_businesses" USING btree ("account_id","environment");