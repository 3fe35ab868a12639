CREATE TABLE "connection_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connection_links_kind_known" CHECK ("connection_links"."kind" in ('HOMETAX', 'BANK_ACCOUNT'))
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"subject" text NOT NULL,
	"method" text NOT NULL,
	"display_name" text,
	"state" text NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"sealed_credentials" text NOT NULL,
	"connected_at" timestamp with time zone,
	"last_synced_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "connections_environment_known" CHECK ("connections"."environment" in ('test', 'live')),
	CONSTRAINT "connections_kind_known" CHECK ("connections"."kind" in ('HOMETAX', 'BANK_ACCOUNT')),
	CONSTRAINT "connections_method_known" CHECK ("connections"."method" in ('PASSWORD', 'CERTIFICATE')),
	CONSTRAINT "connections_state_known" CHECK ("connections"."state" in ('CONNECTED', 'FAILED', 'EXPIRED'))
);
--> statement-breakpoint
CREATE TABLE "revenue_expense_change_counters" (
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"last_sequence" bigint NOT NULL,
	CONSTRAINT "revenue_expense_change_counters_account_id_environment_pk" PRIMARY KEY("account_id","environment")
);
--> statement-breakpoint
CREATE TABLE "revenue_expense_collections" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"connection_id" text NOT NULL,
	"from_month" text NOT NULL,
	"to_month" text NOT NULL,
	"state" text NOT NULL,
	"collected_count" integer DEFAULT 0 NOT NULL,
	"inserted_count" integer DEFAULT 0 NOT NULL,
	"updated_count" integer DEFAULT 0 NOT NULL,
	"unchanged_count" integer DEFAULT 0 NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "revenue_expense_collections_state_known" CHECK ("revenue_expense_collections"."state" in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'))
);
--> statement-breakpoint
CREATE TABLE "revenue_expense_invoices" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"direction" text NOT NULL,
	"source" text NOT NULL,
	"approval_number" text NOT NULL,
	"issuance_key" text,
	"write_date" date NOT NULL,
	"issue_date" date NOT NULL,
	"counterpart_number" text NOT NULL,
	"counterpart_name" text NOT NULL,
	"supply_cost" bigint NOT NULL,
	"tax" bigint NOT NULL,
	"total_amount" bigint NOT NULL,
	"tax_type" text NOT NULL,
	"amendment_reason" integer,
	"original_approval_number" text,
	"status" text NOT NULL,
	"late" boolean NOT NULL,
	"content_hash" text NOT NULL,
	"change_sequence" bigint NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "revenue_expense_invoices_environment_known" CHECK ("revenue_expense_invoices"."environment" in ('test', 'live')),
	CONSTRAINT "revenue_expense_invoices_direction_known" CHECK ("revenue_expense_invoices"."direction" in ('SALES', 'PURCHASE')),
	CONSTRAINT "revenue_expense_invoices_source_known" CHECK ("revenue_expense_invoices"."source" in ('ISSUED_HERE', 'COLLECTED')),
	CONSTRAINT "revenue_expense_invoices_tax_type_known" CHECK ("revenue_expense_invoices"."tax_type" in ('TAXABLE', 'ZERO_RATED', 'TAX_FREE')),
	CONSTRAINT "revenue_expense_invoices_total" CHECK ("revenue_expense_invoices"."total_amount" = "revenue_expense_invoices"."supply_cost" + "revenue_expense_invoices"."tax")
);
--> statement-breakpoint
CREATE INDEX "connection_links_expires_idx" ON "connection_links" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "connections_scope_subject_unique" ON "connections" USING btree ("account_id","environment","kind","subject");--> statement-breakpoint
CREATE INDEX "connections_subject_idx" ON "connections" USING btree ("environment","kind","subject");--> statement-breakpoint
CREATE UNIQUE INDEX "revenue_expense_collections_active_unique" ON "revenue_expense_collections" USING btree ("connection_id") WHERE "revenue_expense_collections"."state" in ('QUEUED', 'RUNNING');--> statement-breakpoint
CREATE INDEX "revenue_expense_collections_connection_idx" ON "revenue_expense_collections" USING btree ("connection_id","state");--> statement-breakpoint
CREATE UNIQUE INDEX "revenue_expense_invoices_identity_unique" ON "revenue_expense_invoices" USING btree ("account_id","environment","direction","approval_number");--> statement-breakpoint
CREATE UNIQUE INDEX "revenue_expense_invoices_feed_unique" ON "revenue_expense_invoices" USING btree ("account_id","environment","change_sequence");--> statement-breakpoint
CREATE INDEX "revenue_expense_invoices_direction_feed_idx" ON "revenue_expense_invoices" USING btree ("account_id","environment","direction","change_sequence");