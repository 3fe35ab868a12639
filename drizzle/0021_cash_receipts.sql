CREATE TABLE "cash_receipts" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"api_key_id" text NOT NULL,
	"client_reference_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text NOT NULL,
	"issuer_id" text NOT NULL,
	"merchant_number" text NOT NULL,
	"merchant_name" text NOT NULL,
	"merchant_representative" text NOT NULL,
	"trade_date" date NOT NULL,
	"usage" text NOT NULL,
	"identity_number" text NOT NULL,
	"taxation" text NOT NULL,
	"trade_option" text NOT NULL,
	"supply_cost" bigint NOT NULL,
	"tax" bigint NOT NULL,
	"service_fee" bigint NOT NULL,
	"total_amount" bigint NOT NULL,
	"item_name" text NOT NULL,
	"customer" jsonb,
	"canceled_supply_cost" bigint DEFAULT 0 NOT NULL,
	"canceled_tax" bigint DEFAULT 0 NOT NULL,
	"canceled_service_fee" bigint DEFAULT 0 NOT NULL,
	"canceled_amount" bigint DEFAULT 0 NOT NULL,
	"cancel_reason" text,
	"original_issuance_key" text,
	"original_approval_number" text,
	"original_trade_date" date,
	"approval_number" text,
	"failure_code" text,
	"failure_message" text,
	"charged_points" integer NOT NULL,
	"reservation_id" text,
	"issued_at" timestamp with time zone,
	"transmitted_at" timestamp with time zone,
	"sequence" bigserial NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "cash_receipts_environment_known" CHECK ("cash_receipts"."environment" in ('test', 'live')),
	CONSTRAINT "cash_receipts_kind_known" CHECK ("cash_receipts"."kind" in ('ISSUANCE', 'CANCELLATION')),
	CONSTRAINT "cash_receipts_status_known" CHECK ("cash_receipts"."status" in ('ACCEPTED', 'ISSUED', 'TRANSMITTED', 'FAILED')),
	CONSTRAINT "cash_receipts_reference_length" CHECK (char_length("cash_receipts"."client_reference_id") between 1 and 255),
	CONSTRAINT "cash_receipts_total" CHECK ("cash_receipts"."total_amount" =
      "cash_receipts"."supply_cost" + "cash_receipts"."tax" + "cash_receipts"."service_fee"),
	CONSTRAINT "cash_receipts_amounts_not_negative" CHECK ("cash_receipts"."supply_cost" >= 0 and "cash_receipts"."tax" >= 0
      and "cash_receipts"."service_fee" >= 0 and "cash_receipts"."total_amount" > 0),
	CONSTRAINT "cash_receipts_canceled_within_total" CHECK ("cash_receipts"."canceled_amount" >= 0 and
      "cash_receipts"."canceled_amount" <= "cash_receipts"."total_amount" and
      "cash_receipts"."canceled_supply_cost" between 0 and "cash_receipts"."supply_cost" and
      "cash_receipts"."canceled_tax" between 0 and "cash_receipts"."tax" and
      "cash_receipts"."canceled_service_fee" between 0 and "cash_receipts"."service_fee"),
	CONSTRAINT "cash_receipts_cancellation_names_original" CHECK (("cash_receipts"."kind" = 'CANCELLATION') =
      ("cash_receipts"."original_issuance_key" is not null)),
	CONSTRAINT "cash_receipts_issued_has_approval_number" CHECK ("cash_receipts"."status" in ('ACCEPTED',
      'FAILED') or "cash_receipts"."approval_number" ~ '^[0-9]{9}$'),
	CONSTRAINT "cash_receipts_charged_points" CHECK ("cash_receipts"."charged_points" >= 0)
);
--> statement-breakpoint
CREATE INDEX "cash_receipts_scope_sequence_idx" ON "cash_receipts" USING btree ("account_id","environment","sequence");--> statement-breakpoint
CREATE INDEX "cash_receipts_scope_trade_date_idx" ON "cash_receipts" USING btree ("account_id","environment","trade_date","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "cash_receipts_reference_idx" ON "cash_receipts" USING btree ("api_key_id","client_reference_id");--> statement-breakpoint
CREATE INDEX "cash_receipts_original_idx" ON "cash_receipts" USING btree ("original_issuance_key");