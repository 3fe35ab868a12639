CREATE TABLE "bulks" (
	"bulk_id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"api_key_id" text NOT NULL,
	"kind" text NOT NULL,
	"client_reference_id" text NOT NULL,
	"fingerprint" text NOT NULL,
	"status" text NOT NULL,
	"item_count" integer NOT NULL,
	"accepted_count" integer DEFAULT 0 NOT NULL,
	"refused_count" integer DEFAULT 0 NOT NULL,
	"items" jsonb,
	"accepting_until" timestamp with time zone,
	"check_after" timestamp with time zone,
	"completed_at" timestamp with time zone,
	"sequence" bigserial NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "bulks_environment_known" CHECK ("bulks"."environment" in ('test', 'live')),
	CONSTRAINT "bulks_kind_known" CHECK ("bulks"."kind" in ('TAX_INVOICE', 'CASH_RECEIPT')),
	CONSTRAINT "bulks_status_known" CHECK ("bulks"."status" in ('ACCEPTING', 'PROCESSING', 'COMPLETED')),
	CONSTRAINT "bulks_reference_length" CHECK (char_length("bulks"."client_reference_id") between 1 and 255),
	CONSTRAINT "bulks_item_count" CHECK ("bulks"."item_count" between 1 and 100),
	CONSTRAINT "bulks_counts" CHECK ("bulks"."accepted_count" >= 0 and "bulks"."refused_count" >= 0 and
      "bulks"."accepted_count" + "bulks"."refused_count" <= "bulks"."item_count"),
	CONSTRAINT "bulks_items_once_accepted" CHECK (("bulks"."status" = 'ACCEPTING') = ("bulks"."items" is null))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "bulks_reference_idx" ON "bulks" USING btree ("api_key_id","kind","client_reference_id");--> statement-breakpoint
CREATE INDEX "bulks_scope_sequence_idx" ON "bulks" USING btree ("account_id","environment","kind","sequence");--> statement-breakpoint
CREATE INDEX "bulks_processing_idx" ON "bulks" USING btree ("kind","check_after") WHERE "bulks"."status" = 'PROCESSING';