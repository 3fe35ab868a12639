-- Tax-invoice processing moves from pg-boss jobs to a narrow queue table of its own, as cash
-- receipts did: a step is a small row's insert, lease and delete instead of a job's insert,
-- fetch, completion and archive. Room is left on each page for the leases' rewrites.
CREATE TABLE "tax_invoice_steps" (
	"issuance_key" text PRIMARY KEY NOT NULL,
	"step" text NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"attempt_number" integer DEFAULT 1 NOT NULL,
	"leased_until" timestamp with time zone,
	CONSTRAINT "tax_invoice_steps_step_known" CHECK ("tax_invoice_steps"."step" in ('ISSUANCE', 'TRANSMISSION')),
	CONSTRAINT "tax_invoice_steps_attempt_positive" CHECK ("tax_invoice_steps"."attempt_number" >= 1)
) WITH (fillfactor = 50);
--> statement-breakpoint
CREATE INDEX "tax_invoice_steps_due_idx" ON "tax_invoice_steps" USING btree ("step","due_at");--> statement-breakpoint
-- Documents in processing keep their step: issuance while PENDING or APPROVED, transmission while
-- ISSUED or TRANSMITTING, due at once.
INSERT INTO "tax_invoice_steps" ("issuance_key", "step", "due_at")
SELECT "issuance_key", CASE WHEN "status" IN ('PENDING', 'APPROVED') THEN 'ISSUANCE'
       ELSE 'TRANSMISSION' END, now()
  FROM "tax_invoices"
 WHERE "status" IN ('PENDING', 'APPROVED', 'ISSUED', 'TRANSMITTING');--> statement-breakpoint
-- Where pg-boss still holds a document's transmission job, its attempt and start time carry over
-- (a retry waits out its delay, a new document its cancel window); then the jobs are removed.
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    EXECUTE $sql$
      UPDATE tax_invoice_steps s
         SET attempt_number = j.attempt, due_at = greatest(j.start_after, now())
        FROM (SELECT DISTINCT ON (data->>'issuanceKey') data->>'issuanceKey' AS issuance_key,
                     (data->>'attemptNumber')::integer AS attempt, start_after
                FROM pgboss.job
               WHERE name = 'tax-invoices-transmission'
                 AND state IN ('created', 'retry', 'active')
               ORDER BY data->>'issuanceKey', (data->>'attemptNumber')::integer DESC) j
       WHERE s.issuance_key = j.issuance_key AND s.step = 'TRANSMISSION'$sql$;
    EXECUTE $sql$
      DELETE FROM pgboss.job
       WHERE name IN ('tax-invoices-issuance', 'tax-invoices-transmission')
         AND state IN ('created', 'retry', 'active')$sql$;
  END IF;
END
$$;--> statement-breakpoint
-- Leases up to p_limit steps of kind p_step that are due at p_now and that no worker holds,
-- oldest due first, until p_until; steps another worker is taking are skipped. Answers their
-- issuance keys and attempts. Planned as the cash receipts' lease is (0026): the steps are
-- picked in a MATERIALIZED expression, which runs once whatever the join's plan, the statement
-- is planned on every call with the queue's size at that moment, and plain index scans mark the
-- entries of rows that have moved on as dead as they pass them.
CREATE FUNCTION tax_invoice_steps_lease(p_step text, p_now timestamptz, p_until timestamptz,
  p_limit integer) RETURNS TABLE (issuance_key text, attempt_number integer)
LANGUAGE plpgsql
ROWS 50
SET enable_bitmapscan = off
SET plan_cache_mode = force_custom_plan
AS $fn$
BEGIN
  RETURN QUERY
  WITH picked AS MATERIALIZED (
    SELECT d.issuance_key FROM tax_invoice_steps d
     WHERE d.step = p_step AND d.due_at <= p_now
       AND (d.leased_until IS NULL OR d.leased_until <= p_now)
     ORDER BY d.due_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED)
  UPDATE tax_invoice_steps s SET leased_until = p_until
    FROM picked
   WHERE s.issuance_key = picked.issuance_key
  RETURNING s.issuance_key, s.attempt_number;
END
$fn$;
