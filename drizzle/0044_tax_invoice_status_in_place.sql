-- A failed document always has its failure code (lifecycle.ts), which the index of failures now
-- depends on instead of the status; documents that failed before that was so get the general one.
UPDATE "tax_invoices" SET "failure_code" = 'ISSUANCE_FAILED',
  "failure_message" = coalesce("failure_message", 'The tax invoice could not be issued.')
 WHERE "status" = 'FAILED' AND "failure_code" IS NULL;--> statement-breakpoint
DROP INDEX "tax_invoices_failed_idx";--> statement-breakpoint
CREATE INDEX "tax_invoices_failed_idx" ON "tax_invoices" USING btree ("account_id","environment","sequence") WHERE "tax_invoices"."failure_code" is not null;--> statement-breakpoint
-- Room on each page for the new versions of its documents' rows, so that a status change
-- rewrites the row in place (a heap-only update) instead of adding an entry to every index.
ALTER TABLE "tax_invoices" SET (fillfactor = 50);
