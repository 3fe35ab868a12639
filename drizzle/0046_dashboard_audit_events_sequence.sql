DROP INDEX "dashboard_audit_events_account_idx";--> statement-breakpoint
ALTER TABLE "dashboard_audit_events" ADD COLUMN "sequence" bigserial NOT NULL;--> statement-breakpoint
-- The events already recorded take their sequence in the order the log showed them: by time,
-- then by id.
UPDATE "dashboard_audit_events" a SET "sequence" = o."position"
  FROM (SELECT "id", row_number() OVER (ORDER BY "created_at", "id") AS "position"
          FROM "dashboard_audit_events") o
 WHERE a."id" = o."id";--> statement-breakpoint
SELECT setval(pg_get_serial_sequence('dashboard_audit_events', 'sequence'),
  COALESCE(max("sequence"), 0) + 1, false) FROM "dashboard_audit_events";--> statement-breakpoint
CREATE INDEX "dashboard_audit_events_account_sequence_idx" ON "dashboard_audit_events" USING btree ("account_id","sequence");
