CREATE TABLE "dashboard_audit_events" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"environment" text,
	"actor_user_id" text,
	"actor_email" text,
	"action" text NOT NULL,
	"target" text,
	"address" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dashboard_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"user_id" text NOT NULL,
	"environment" text DEFAULT 'test' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"address" text,
	"user_agent" text,
	CONSTRAINT "dashboard_sessions_environment_known" CHECK ("dashboard_sessions"."environment" in ('test', 'live'))
);
--> statement-breakpoint
CREATE TABLE "dashboard_user_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"purpose" text NOT NULL,
	"account_id" text NOT NULL,
	"user_id" text,
	"email" text NOT NULL,
	"role" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "dashboard_user_tokens_purpose_known" CHECK ("dashboard_user_tokens"."purpose" in ('invitation', 'password_reset'))
);
--> statement-breakpoint
CREATE TABLE "dashboard_users" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"email" text NOT NULL,
	"password_hash" text NOT NULL,
	"role" text NOT NULL,
	"operator" boolean DEFAULT false NOT NULL,
	"locale" text DEFAULT 'ko' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"password_changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dashboard_users_role_known" CHECK ("dashboard_users"."role" in ('owner', 'admin', 'developer', 'issuer', 'viewer')),
	CONSTRAINT "dashboard_users_locale_known" CHECK ("dashboard_users"."locale" in ('ko', 'en')),
	CONSTRAINT "dashboard_users_email_length" CHECK (char_length("dashboard_users"."email") between 3 and 254)
);
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "label" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "dashboard_audit_events" ADD CONSTRAINT "dashboard_audit_events_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_user_id_dashboard_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."dashboard_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_user_tokens" ADD CONSTRAINT "dashboard_user_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_user_tokens" ADD CONSTRAINT "dashboard_user_tokens_user_id_dashboard_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."dashboard_users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dashboard_users" ADD CONSTRAINT "dashboard_users_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "dashboard_audit_events_account_idx" ON "dashboard_audit_events" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_sessions_token_hash_unique" ON "dashboard_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "dashboard_sessions_user_idx" ON "dashboard_sessions" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "dashboard_user_tokens_account_idx" ON "dashboard_user_tokens" USING btree ("account_id");--> statement-breakpoint
CREATE UNIQUE INDEX "dashboard_users_email_unique" ON "dashboard_users" USING btree (lower("email"));--> statement-breakpoint
CREATE INDEX "dashboard_users_account_idx" ON "dashboard_users" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_label_length" CHECK (char_length("api_keys"."label") between 1 and 100);