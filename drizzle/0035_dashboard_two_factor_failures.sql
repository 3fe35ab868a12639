CREATE TABLE "dashboard_account_settings" (
	"account_id" text PRIMARY KEY NOT NULL,
	"two_factor_required" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN "response_body" text;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN "response_body_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "second_factor_pending" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_secret" text;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_pending_secret" text;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "totp_last_step" bigint;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD COLUMN "recovery_code_hashes" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "dashboard_account_settings" ADD CONSTRAINT "dashboard_account_settings_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tax_invoices_failed_idx" ON "tax_invoices" USING btree ("account_id","environment","sequence") WHERE "tax_invoices"."status" = 'FAILED';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("endpoint_id","sequence") WHERE "webhook_deliveries"."status" = 'failed';