-- The lease of cash receipt steps, planned on every call and taking its steps exactly once.
--
-- Before: the steps were picked in an IN (subquery) and the function's plan was made once per
-- connection. A connection that first leased while the queue was empty, with statistics that
-- said so (a vacuumed or analyzed empty table), kept a plan for an empty table: a nested loop
-- that ran the locking subquery again for every row of the queue. Once a burst filled the queue,
-- one lease took minutes of CPU, held the locks of the steps it had picked meanwhile, and the
-- other workers' leases and approvals waited behind it or skipped its locked rows one by one.
--
-- Now the steps are picked in a MATERIALIZED common table expression, which runs once whatever
-- the join's plan, and the statement is planned on every call with the queue's size at that
-- moment (plan_cache_mode), which costs a fraction of a millisecond per batch of up to 200
-- steps. Plain index scans stay the rule (enable_bitmapscan): a queue's index fills with entries
-- of rows that have moved on, and only a plain index scan marks those dead as it passes them,
-- so later scans skip them, while a bitmap scan visits every one of them each time.
--
-- Leases up to p_limit steps of kind p_step that are due at p_now and that no worker holds,
-- oldest due first, until p_until; steps another worker is taking are skipped. Answers their
-- issuance keys and attempts.
CREATE OR REPLACE FUNCTION cash_receipt_steps_lease(p_step text, p_now timestamptz,
  p_until timestamptz, p_limit integer) RETURNS TABLE (issuance_key text, attempt_number integer)
LANGUAGE plpgsql
ROWS 50
SET enable_bitmapscan = off
SET plan_cache_mode = force_custom_plan
AS $$
BEGIN
  RETURN QUERY
  WITH picked AS MATERIALIZED (
    SELECT d.issuance_key FROM cash_receipt_steps d
     WHERE d.step = p_step AND d.due_at <= p_now
       AND (d.leased_until IS NULL OR d.leased_until <= p_now)
     ORDER BY d.due_at
     LIMIT p_limit
       FOR UPDATE SKIP LOCKED)
  UPDATE cash_receipt_steps s SET leased_until = p_until
    FROM picked
   WHERE s.issuance_key = picked.issuance_key
  RETURNING s.issuance_key, s.attempt_number;
END
$$;
