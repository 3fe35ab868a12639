DROP INDEX "cash_receipts_original_idx";--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "charge_entry_id" text;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "due_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "attempt_number" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "cash_receipts" ADD COLUMN "leased_until" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "cash_receipts_due_idx" ON "cash_receipts" USING btree ("status","due_at") WHERE "cash_receipts"."due_at" is not null;--> statement-breakpoint
CREATE INDEX "cash_receipts_original_idx" ON "cash_receipts" USING btree ("original_issuance_key") WHERE "cash_receipts"."original_issuance_key" is not null;--> statement-breakpoint
-- Room on each page for the workers' leases, so taking a step rewrites the row in place
-- instead of adding an entry to every index.
ALTER TABLE "cash_receipts" SET (fillfactor = 70);--> statement-breakpoint
-- Receipts still on their way: approval is due at once; transmission at once in the sandbox and
-- from midnight (Korea time) after the approval day for live keys, as before.
UPDATE "cash_receipts" SET "due_at" = now() WHERE "status" = 'ACCEPTED';--> statement-breakpoint
UPDATE "cash_receipts" SET "due_at" = CASE WHEN "environment" = 'live'
  THEN ((coalesce("issued_at", now()) AT TIME ZONE 'Asia/Seoul')::date + 1)::timestamp
       AT TIME ZONE 'Asia/Seoul'
  ELSE now() END
 WHERE "status" = 'ISSUED';--> statement-breakpoint
-- The job queues these steps used before; their jobs would never run again.
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    DELETE FROM pgboss.job
     WHERE name IN ('cash-receipts-approval', 'cash-receipts-transmission');
  END IF;
END $$;
--> statement-breakpoint
-- Leases up to p_limit receipts in p_status whose step is due at p_now and that no worker holds,
-- oldest due first, until p_until; rows another worker is taking are skipped. Answers their
-- issuance keys. A queue's index fills with entries of rows that have moved on; only a plain
-- index scan marks those dead as it passes them, so later scans skip them, while a bitmap scan
-- visits every one of them each time. Hence the setting, for this function only.
CREATE FUNCTION cash_receipts_lease_due(p_status text, p_now timestamptz, p_until timestamptz,
  p_limit integer) RETURNS SETOF text
LANGUAGE sql
SET enable_bitmapscan = off
AS $$
  UPDATE cash_receipts SET leased_until = p_until
   WHERE issuance_key IN (
     SELECT c.issuance_key FROM cash_receipts c
      WHERE c.status = p_status AND c.due_at IS NOT NULL AND c.due_at <= p_now
        AND (c.leased_until IS NULL OR c.leased_until <= p_now)
      ORDER BY c.due_at
      LIMIT p_limit
        FOR UPDATE SKIP LOCKED)
  RETURNING issuance_key
$$;
