CREATE TABLE "certificate_registration_history" (
	"identifier" text PRIMARY KEY NOT NULL,
	"issuer_id" text NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"code" text NOT NULL,
	"message" text NOT NULL,
	CONSTRAINT "certificate_registration_history_environment_known" CHECK ("certificate_registration_history"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "certificate_registration_settings" (
	"api_key_id" text PRIMARY KEY NOT NULL,
	"redirect_url" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "certificate_registration_settings_url" CHECK (char_length("certificate_registration_settings"."redirect_url") <= 2000)
);
--> statement-breakpoint
CREATE TABLE "certificate_registration_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"issuer_id" text NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"redirect_url" text,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "certificate_registration_tokens_environment_known" CHECK ("certificate_registration_tokens"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "certificate_uploads" (
	"id" text PRIMARY KEY NOT NULL,
	"issuer_id" text NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"sealed_upload" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "certificate_uploads_environment_known" CHECK ("certificate_uploads"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "issuer_certificates" (
	"issuer_id" text PRIMARY KEY NOT NULL,
	"registration_identifier" text NOT NULL,
	"certificate_base64" text NOT NULL,
	"sealed_private_key" text NOT NULL,
	"subject" text NOT NULL,
	"issuer_name" text NOT NULL,
	"serial_number" text NOT NULL,
	"not_before" timestamp with time zone NOT NULL,
	"not_after" timestamp with time zone NOT NULL,
	"key_usages" text[] NOT NULL,
	"policies" text[] NOT NULL,
	"registered_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "issuers" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"supplier_key" text NOT NULL,
	"identification_number" text NOT NULL,
	"tax_registration_id" text,
	"organization_name" text NOT NULL,
	"representative_name" text NOT NULL,
	"contact_name" text,
	"contact_email" text,
	"contact_phone" text,
	"sequence" bigserial NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deactivated_at" timestamp with time zone,
	CONSTRAINT "issuers_environment_known" CHECK ("issuers"."environment" in ('test', 'live')),
	CONSTRAINT "issuers_number_digits" CHECK ("issuers"."identification_number" ~ '^[0-9]{10}$'),
	CONSTRAINT "issuers_tax_registration_id" CHECK ("issuers"."tax_registration_id" ~ '^[0-9]{4}$' and "issuers"."tax_registration_id" <> '0000'),
	CONSTRAINT "issuers_text_length" CHECK (char_length("issuers"."organization_name") between 1 and 100
        and char_length("issuers"."representative_name") between 1 and 50
        and char_length("issuers"."contact_name") <= 50
        and char_length("issuers"."contact_email") <= 254
        and char_length("issuers"."contact_phone") <= 30)
);
--> statement-breakpoint
ALTER TABLE "certificate_registration_history" ADD CONSTRAINT "certificate_registration_history_issuer_id_issuers_id_fk" FOREIGN KEY ("issuer_id") REFERENCES "public"."issuers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "certificate_registration_tokens" ADD CONSTRAINT "certificate_registration_tokens_issuer_id_issuers_id_fk" FOREIGN KEY ("issuer_id") REFERENCES "public"."issuers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "certificate_uploads" ADD CONSTRAINT "certificate_uploads_issuer_id_issuers_id_fk" FOREIGN KEY ("issuer_id") REFERENCES "public"."issuers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "issuer_certificates" ADD CONSTRAINT "issuer_certificates_issuer_id_issuers_id_fk" FOREIGN KEY ("issuer_id") REFERENCES "public"."issuers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "certificate_registration_history_latest_idx" ON "certificate_registration_history" USING btree ("issuer_id","occurred_at" DESC NULLS LAST,"identifier" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "issuers_supplier_key_unique" ON "issuers" USING btree ("supplier_key");--> statement-breakpoint
CREATE UNIQUE INDEX "issuers_business_unique" ON "issuers" USING btree ("account_id","environment","identification_number",coalesce("tax_registration_id", '')) WHERE "issuers"."deactivated_at" is null;--> statement-breakpoint
CREATE INDEX "issuers_scope_sequence_idx" ON "issuers" USING btree ("account_id","environment","sequence");