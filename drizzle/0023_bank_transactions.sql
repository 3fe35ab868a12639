CREATE TABLE "bank_account_syncs" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"bank_account_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"trigger" text NOT NULL,
	"state" text NOT NULL,
	"from_date" date,
	"to_date" date,
	"listed_count" integer DEFAULT 0 NOT NULL,
	"created_count" integer DEFAULT 0 NOT NULL,
	"updated_count" integer DEFAULT 0 NOT NULL,
	"unchanged_count" integer DEFAULT 0 NOT NULL,
	"failure_code" text,
	"failure_message" text,
	"requested_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "bank_account_syncs_environment_known" CHECK ("bank_account_syncs"."environment" in ('test', 'live')),
	CONSTRAINT "bank_account_syncs_trigger_known" CHECK ("bank_account_syncs"."trigger" in ('REQUEST', 'SCHEDULE')),
	CONSTRAINT "bank_account_syncs_state_known" CHECK ("bank_account_syncs"."state" in ('QUEUED', 'RUNNING', 'SUCCEEDED', 'FAILED'))
);
--> statement-breakpoint
CREATE TABLE "bank_accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"bank_code" text NOT NULL,
	"masked_account_number" text NOT NULL,
	"holder_name" text,
	"balance" bigint,
	"last_synced_at" timestamp with time zone,
	"last_synced_through" date,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_accounts_environment_known" CHECK ("bank_accounts"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "bank_transactions" (
	"id" text PRIMARY KEY NOT NULL,
	"bank_account_id" text NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"booked_date" date NOT NULL,
	"sequence" integer NOT NULL,
	"booked_time" text,
	"direction" text NOT NULL,
	"amount" bigint NOT NULL,
	"balance_after" bigint,
	"counterparty_name" text,
	"memo" text,
	"branch" text,
	"content_hash" text NOT NULL,
	"changed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bank_transactions_environment_known" CHECK ("bank_transactions"."environment" in ('test', 'live')),
	CONSTRAINT "bank_transactions_direction_known" CHECK ("bank_transactions"."direction" in ('DEPOSIT', 'WITHDRAWAL')),
	CONSTRAINT "bank_transactions_amount_positive" CHECK ("bank_transactions"."amount" > 0)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "bank_account_syncs_active_unique" ON "bank_account_syncs" USING btree ("bank_account_id") WHERE "bank_account_syncs"."state" in ('QUEUED', 'RUNNING');--> statement-breakpoint
CREATE INDEX "bank_account_syncs_account_idx" ON "bank_account_syncs" USING btree ("bank_account_id","requested_at");--> statement-breakpoint
CREATE INDEX "bank_accounts_scope_idx" ON "bank_accounts" USING btree ("account_id","environment");--> statement-breakpoint
CREATE UNIQUE INDEX "bank_transactions_line_unique" ON "bank_transactions" USING btree ("bank_account_id","booked_date","sequence");