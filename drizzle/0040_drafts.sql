CREATE TABLE "draft_settings" (
	"account_id" text PRIMARY KEY NOT NULL,
	"approval_required" boolean NOT NULL,
	"updated_by" text NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "drafts" (
	"draft_id" text PRIMARY KEY NOT NULL,
	"sequence" bigserial NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"supplier_key" text,
	"body" jsonb NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" text NOT NULL,
	"updated_by" text NOT NULL,
	"submitted_at" timestamp with time zone,
	"submitted_by" text,
	"return_reason" text,
	"returned_at" timestamp with time zone,
	"returned_by" text,
	"issuance_key" text,
	"issued_at" timestamp with time zone,
	"issued_by" text,
	"issue_reference_id" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "drafts_kind_check" CHECK ("drafts"."kind" in ('TAX_INVOICE', 'CASH_RECEIPT')),
	CONSTRAINT "drafts_status_check" CHECK ("drafts"."status" in ('DRAFT', 'SUBMITTED', 'ISSUED'))
);
--> statement-breakpoint
CREATE INDEX "drafts_scope_kind_sequence_idx" ON "drafts" USING btree ("account_id","environment","kind","sequence");