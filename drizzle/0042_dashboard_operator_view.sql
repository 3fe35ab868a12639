ALTER TABLE "dashboard_sessions" ADD COLUMN "viewing_account_id" text;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD COLUMN "shown_once" text;--> statement-breakpoint
ALTER TABLE "dashboard_sessions" ADD CONSTRAINT "dashboard_sessions_viewing_account_id_accounts_id_fk" FOREIGN KEY ("viewing_account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;