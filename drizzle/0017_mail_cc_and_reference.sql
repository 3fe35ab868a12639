ALTER TABLE "mail_outbox" ADD COLUMN "cc" text[] DEFAULT '{}'::text[] NOT NULL;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD COLUMN "reference" text;--> statement-breakpoint
ALTER TABLE "mail_outbox" ADD CONSTRAINT "mail_outbox_cc_count" CHECK (cardinality("mail_outbox"."cc") <= 5);