CREATE TABLE "tax_invoice_approval_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"issuance_key" text NOT NULL,
	"channel" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "tax_invoice_approval_tokens_channel_known" CHECK ("tax_invoice_approval_tokens"."channel" in ('GRANT', 'EMAIL')),
	CONSTRAINT "tax_invoice_approval_tokens_hash" CHECK ("tax_invoice_approval_tokens"."token_hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
CREATE TABLE "mail_outbox" (
	"id" text PRIMARY KEY NOT NULL,
	"sequence" bigserial NOT NULL,
	"account_id" text,
	"environment" text,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"subject" text NOT NULL,
	"text_body" text NOT NULL,
	"html_body" text,
	"status" text NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "mail_outbox_status_known" CHECK ("mail_outbox"."status" in ('PENDING', 'SENT', 'KEPT', 'FAILED')),
	CONSTRAINT "mail_outbox_environment_known" CHECK ("mail_outbox"."environment" in ('test', 'live')),
	CONSTRAINT "mail_outbox_lengths" CHECK (char_length("mail_outbox"."kind") between 1 and 100
      and char_length("mail_outbox"."recipient") between 3 and 254
      and char_length("mail_outbox"."subject") between 1 and 300
      and char_length("mail_outbox"."text_body") <= 20000
      and char_length("mail_outbox"."html_body") <= 60000
      and char_length("mail_outbox"."last_error") <= 500),
	CONSTRAINT "mail_outbox_attempt_count" CHECK ("mail_outbox"."attempt_count" >= 0),
	CONSTRAINT "mail_outbox_sent_has_time" CHECK (("mail_outbox"."status" = 'SENT') = ("mail_outbox"."sent_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "tax_invoice_approval_tokens" ADD CONSTRAINT "tax_invoice_approval_tokens_issuance_key_tax_invoices_issuance_key_fk" FOREIGN KEY ("issuance_key") REFERENCES "public"."tax_invoices"("issuance_key") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "tax_invoice_approval_tokens_invoice_idx" ON "tax_invoice_approval_tokens" USING btree ("issuance_key");--> statement-breakpoint
CREATE INDEX "mail_outbox_sequence_idx" ON "mail_outbox" USING btree ("sequence");