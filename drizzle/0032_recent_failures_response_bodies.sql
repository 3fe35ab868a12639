ALTER TABLE "webhook_delivery_attempts" ADD COLUMN "response_body" text;--> statement-breakpoint
ALTER TABLE "webhook_delivery_attempts" ADD COLUMN "response_body_truncated" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "tax_invoices_failed_idx" ON "tax_invoices" USING btree ("account_id","environment","sequence") WHERE "tax_invoices"."status" = 'FAILED';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_failed_idx" ON "webhook_deliveries" USING btree ("endpoint_id","sequence") WHERE "webhook_deliveries"."status" = 'failed';