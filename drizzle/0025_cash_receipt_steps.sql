-- The processing queue of cash receipts moves to a narrow table of its own, so that a receipt's
-- own changes (status, approval number, times) touch none of its indexes and are rewritten in
-- place, and leases are writes of a small row. Room is left on each page for those rewrites.
CREATE TABLE "cash_receipt_steps" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"step" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"attempt_number" integer DEFAULT 1 NOT NULL,
	"leased_until" timestamp with time zone,
	CONSTRAINT "cash_receipt_steps_step_known" CHECK ("cash_receipt_steps"."step" in ('APPROVAL', 'TRANSMISSION')),
	CONSTRAINT "cash_receipt_steps_attempt_positive" CHECK ("cash_receipt_steps"."attempt_number" >= 1)
) WITH (fillfactor = 50);
--> statement-breakpoint
CREATE INDEX "cash_receipt_steps_due_idx" ON "cash_receipt_steps" USING btree ("step","due_at");--> statement-breakpoint
-- Receipts in processing keep their step, due time, attempt and lease.
INSERT INTO "cash_receipt_steps" ("issuance_key", "step", "due_at", "attempt_number", "leased_until")
SELECT "issuance_key", CASE "status" WHEN 'ACCEPTED' THEN 'APPROVAL' ELSE 'TRANSMISSION' END,
       "due_at", "attempt_number", "leased_until"
  FROM "cash_receipts"
 WHERE "status" IN ('ACCEPTED', 'ISSUED') AND "due_at" IS NOT NULL;--> statement-breakpoint
DROP FUNCTION "cash_receipts_lease_due"(text, timestamptz, timestamptz, integer);--> statement-breakpoint
DROP INDEX "cash_receipts_due_idx";--> statement-breakpoint
ALTER TABLE "cash_receipts" DROP COLUMN "due_at";--> statement-breakpoint
ALTER TABLE "cash_receipts" DROP COLUMN "attempt_number";--> statement-breakpoint
ALTER TABLE "cash_receipts" DROP COLUMN "leased_until";--> statement-breakpoint
-- Leases up to p_limit steps of kind p_step that are due at p_now and that no worker holds,
-- oldest due first, until p_until; steps another worker is taking are skipped. Answers their
-- issuance keys and attempts. A queue's index fills with entries of rows that have moved on;
-- only a plain index scan marks those dead as it passes them, so later scans skip them, while a
-- bitmap scan visits every one of them each time: hence the setting, for this function only.
-- PL/pgSQL, because PostgreSQL plans an SQL function's statement on every call and a PL/pgSQL
-- function's once per connection.
CREATE FUNCTION cash_receipt_steps_lease(p_step text, p_now timestamptz, p_until timestamptz,
  p_limit integer) RETURNS TABLE (issuance_key text, attempt_number integer)
LANGUAGE plpgsql
ROWS 50
SET enable_bitmapscan = off
AS $$
BEGIN
  RETURN QUERY
  UPDATE cash_receipt_steps s SET leased_until = p_until
   WHERE s.issuance_key IN (
     SELECT d.issuance_key FROM cash_receipt_steps d
      WHERE d.step = p_step AND d.due_at <= p_now
        AND (d.leased_until IS NULL OR d.leased_until <= p_now)
      ORDER BY d.due_at
      LIMIT p_limit
        FOR UPDATE SKIP LOCKED)
  RETURNING s.issuance_key, s.attempt_number;
END
$$;
