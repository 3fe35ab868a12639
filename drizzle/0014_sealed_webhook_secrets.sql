-- Webhook signing secrets are sealed at rest with the encryption key (docs/webhooks.md § Secrets
-- at rest). SQL has no access to that key, so this migration only makes room: existing rows keep
-- their plain-text secret in "secret" / "previous_secret", which still signs, and every process
-- start seals them into the new columns and clears the old ones (src/areas/webhooks/
-- secrets-at-rest.ts); `etax reseal` does the same.
ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_previous_secret_pair";--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ALTER COLUMN "secret" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "sealed_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD COLUMN "sealed_previous_secret" text;--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_one_secret" CHECK (("webhook_endpoints"."sealed_secret" is null) <> ("webhook_endpoints"."secret" is null));--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_one_previous_secret" CHECK ("webhook_endpoints"."sealed_previous_secret" is null or "webhook_endpoints"."previous_secret" is null);--> statement-breakpoint
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_previous_secret_pair" CHECK ((coalesce("webhook_endpoints"."sealed_previous_secret", "webhook_endpoints"."previous_secret") is null)
        = ("webhook_endpoints"."previous_secret_expires_at" is null));