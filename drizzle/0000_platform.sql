CREATE TABLE "accounts" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"plan" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "accounts_plan_known" CHECK ("accounts"."plan" in ('FREE', 'STANDARD', 'PREMIUM')),
	CONSTRAINT "accounts_name_length" CHECK (char_length("accounts"."name") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"key_hash" text NOT NULL,
	"redacted" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_environment_known" CHECK ("api_keys"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "idempotency_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"api_key_id" text NOT NULL,
	"namespace" text NOT NULL,
	"reference_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"response_status" integer,
	"response_body" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_claims_reference_length" CHECK (char_length("idempotency_claims"."reference_id") between 1 and 255)
);
--> statement-breakpoint
CREATE TABLE "point_balances" (
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"posted_points" bigint DEFAULT 0 NOT NULL,
	"reserved_points" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "point_balances_account_id_environment_pk" PRIMARY KEY("account_id","environment"),
	CONSTRAINT "point_balances_environment_known" CHECK ("point_balances"."environment" in ('test', 'live')),
	CONSTRAINT "point_balances_reserved_not_negative" CHECK ("point_balances"."reserved_points" >= 0),
	CONSTRAINT "point_balances_reserved_covered" CHECK ("point_balances"."posted_points" >= "point_balances"."reserved_points")
);
--> statement-breakpoint
CREATE TABLE "point_ledger_entries" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"kind" text NOT NULL,
	"amount_points" bigint NOT NULL,
	"balance_after_points" bigint NOT NULL,
	"reservation_id" text,
	"memo" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "point_ledger_entries_kind_known" CHECK ("point_ledger_entries"."kind" in ('grant', 'capture')),
	CONSTRAINT "point_ledger_entries_balance_not_negative" CHECK ("point_ledger_entries"."balance_after_points" >= 0)
);
--> statement-breakpoint
CREATE TABLE "point_reservations" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"operation" text NOT NULL,
	"reserved_points" bigint NOT NULL,
	"status" text DEFAULT 'reserved' NOT NULL,
	"captured_points" bigint,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "point_reservations_status_known" CHECK ("point_reservations"."status" in ('reserved', 'captured', 'released', 'expired')),
	CONSTRAINT "point_reservations_amount_positive" CHECK ("point_reservations"."reserved_points" > 0),
	CONSTRAINT "point_reservations_capture_within_reserve" CHECK ("point_reservations"."captured_points" is null or "point_reservations"."captured_points" between 0 and "point_reservations"."reserved_points")
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "point_balances" ADD CONSTRAINT "point_balances_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_key_hash_unique" ON "api_keys" USING btree ("key_hash");--> statement-breakpoint
CREATE INDEX "api_keys_account_idx" ON "api_keys" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "idempotency_claims_reference_unique" ON "idempotency_claims" USING btree ("api_key_id","namespace","reference_id");--> statement-breakpoint
CREATE INDEX "point_ledger_entries_balance_idx" ON "point_ledger_entries" USING btree ("account_id","environment","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "point_ledger_entries_reservation_unique" ON "point_ledger_entries" USING btree ("reservation_id");--> statement-breakpoint
CREATE INDEX "point_reservations_open_idx" ON "point_reservations" USING btree ("expires_at") WHERE "point_reservations"."status" = 'reserved';