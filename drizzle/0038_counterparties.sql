CREATE TABLE "counterparties" (
	"id" text PRIMARY KEY NOT NULL,
	"sequence" bigint GENERATED ALWAYS AS IDENTITY (sequence name "counterparties_sequence_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"business_registration_number" text NOT NULL,
	"tax_registration_id" text DEFAULT '' NOT NULL,
	"organization_name" text NOT NULL,
	"representative_name" text NOT NULL,
	"address" text,
	"business_type" text,
	"business_item" text,
	"managers" jsonb NOT NULL,
	"memo" text,
	"registration_status" text,
	"closed_on" date,
	"tax_type" text,
	"status_checked_at" timestamp with time zone,
	"auto_refresh_status" boolean DEFAULT false NOT NULL,
	"import_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "counterparties_environment_known" CHECK ("counterparties"."environment" in ('test', 'live')),
	CONSTRAINT "counterparties_number_digits" CHECK ("counterparties"."business_registration_number" ~ '^[0-9]{10}$'),
	CONSTRAINT "counterparties_tax_registration_id" CHECK ("counterparties"."tax_registration_id" = '' or "counterparties"."tax_registration_id" ~ '^[0-9]{4}$'),
	CONSTRAINT "counterparties_text_length" CHECK (char_length("counterparties"."organization_name") between 1 and 100
      and char_length("counterparties"."representative_name") between 1 and 50
      and coalesce(char_length("counterparties"."address"), 0) <= 200
      and coalesce(char_length("counterparties"."business_type"), 0) <= 100
      and coalesce(char_length("counterparties"."business_item"), 0) <= 100
      and coalesce(char_length("counterparties"."memo"), 0) <= 1000),
	CONSTRAINT "counterparties_status_known" CHECK ("counterparties"."registration_status" is null or
      "counterparties"."registration_status" in
      ('ACTIVE', 'SUSPENDED', 'CLOSED', 'NOT_REGISTERED', 'UNKNOWN'))
);
--> statement-breakpoint
CREATE TABLE "counterparty_imports" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"file_name" text,
	"rows" jsonb NOT NULL,
	"valid_rows" integer NOT NULL,
	"status" text DEFAULT 'PREVIEWED' NOT NULL,
	"created_count" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"committed_at" timestamp with time zone,
	CONSTRAINT "counterparty_imports_status_known" CHECK ("counterparty_imports"."status" in ('PREVIEWED', 'COMMITTED'))
);
--> statement-breakpoint
CREATE INDEX "counterparties_scope_idx" ON "counterparties" USING btree ("account_id","environment","sequence");--> statement-breakpoint
CREATE UNIQUE INDEX "counterparties_number_uq" ON "counterparties" USING btree ("account_id","environment","business_registration_number","tax_registration_id");--> statement-breakpoint
CREATE INDEX "counterparties_auto_refresh_idx" ON "counterparties" USING btree ("status_checked_at") WHERE "counterparties"."auto_refresh_status";--> statement-breakpoint
CREATE INDEX "counterparty_imports_scope_idx" ON "counterparty_imports" USING btree ("account_id","environment","created_at");