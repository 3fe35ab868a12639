ALTER TABLE "cash_receipts" ALTER COLUMN "identity_number" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "lease_until" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "sealed_identity_number" text;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "masked_identity_number" text;--> statement-breakpoint
ALTER TABLE "connection_links" ADD COLUMN "failed_logins" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "connections" ADD COLUMN "masked_account_number" text;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD CONSTRAINT "cash_receipts_identity_number_kept" CHECK (("cash_receipts"."sealed_identity_number" is not null
      and "cash_receipts"."masked_identity_number" is not null)
      or "cash_receipts"."identity_number" is not null);--> statement-breakpoint
UPDATE "revenue_expense_invoices" SET "issuance_key" = NULL WHERE "direction" = 'PURCHASE' AND "issuance_key" IS NOT NULL;
