ALTER TABLE "point_ledger_entries" ADD COLUMN "operation" text;--> statement-breakpoint
ALTER TABLE "point_ledger_entries" ADD COLUMN "request_id" text;--> statement-breakpoint
ALTER TABLE "point_ledger_entries" ADD COLUMN "document_id" text;--> statement-breakpoint
ALTER TABLE "point_reservations" ADD COLUMN "request_id" text;