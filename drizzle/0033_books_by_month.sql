CREATE TABLE "revenue_expense_month_totals" (
	"account_id" text NOT NULL,
	"environment" text NOT NULL,
	"month" date NOT NULL,
	"direction" text NOT NULL,
	"entries" bigint NOT NULL,
	"supply_cost" bigint NOT NULL,
	"tax" bigint NOT NULL,
	"total_amount" bigint NOT NULL,
	CONSTRAINT "revenue_expense_month_totals_account_id_environment_month_direction_pk" PRIMARY KEY("account_id","environment","month","direction")
);
--> statement-breakpoint
CREATE INDEX "revenue_expense_invoices_direction_date_idx" ON "revenue_expense_invoices" USING btree ("account_id","environment","direction","write_date","id");--> statement-breakpoint
-- The books by month are kept by statement triggers: each write of revenue_expense_invoices,
-- however many rows, adds its new rows' counts and sums to their months and takes its old rows'
-- away, in one statement of the writing transaction.
CREATE FUNCTION "revenue_expense_month_totals_add"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "revenue_expense_month_totals" AS t
    ("account_id", "environment", "month", "direction", "entries", "supply_cost", "tax",
     "total_amount")
  SELECT "account_id", "environment", date_trunc('month', "write_date")::date, "direction",
    count(*), sum("supply_cost"), sum("tax"), sum("total_amount")
  FROM new_rows GROUP BY 1, 2, 3, 4
  ON CONFLICT ("account_id", "environment", "month", "direction") DO UPDATE SET
    "entries" = t."entries" + excluded."entries",
    "supply_cost" = t."supply_cost" + excluded."supply_cost",
    "tax" = t."tax" + excluded."tax",
    "total_amount" = t."total_amount" + excluded."total_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "revenue_expense_month_totals_subtract"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "revenue_expense_month_totals" AS t
    ("account_id", "environment", "month", "direction", "entries", "supply_cost", "tax",
     "total_amount")
  SELECT "account_id", "environment", date_trunc('month', "write_date")::date, "direction",
    -count(*), -sum("supply_cost"), -sum("tax"), -sum("total_amount")
  FROM old_rows GROUP BY 1, 2, 3, 4
  ON CONFLICT ("account_id", "environment", "month", "direction") DO UPDATE SET
    "entries" = t."entries" + excluded."entries",
    "supply_cost" = t."supply_cost" + excluded."supply_cost",
    "tax" = t."tax" + excluded."tax",
    "total_amount" = t."total_amount" + excluded."total_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "revenue_expense_month_totals_replace"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- Old rows out, new rows in, as one change per month and direction.
  INSERT INTO "revenue_expense_month_totals" AS t
    ("account_id", "environment", "month", "direction", "entries", "supply_cost", "tax",
     "total_amount")
  SELECT "account_id", "environment", "month", "direction", sum("entries"),
    sum("supply_cost"), sum("tax"), sum("total_amount")
  FROM (
    SELECT "account_id", "environment", date_trunc('month', "write_date")::date AS "month",
      "direction", 1 AS "entries", "supply_cost", "tax", "total_amount" FROM new_rows
    UNION ALL
    SELECT "account_id", "environment", date_trunc('month', "write_date")::date, "direction",
      -1, -"supply_cost", -"tax", -"total_amount" FROM old_rows
  ) AS changes GROUP BY 1, 2, 3, 4
  ON CONFLICT ("account_id", "environment", "month", "direction") DO UPDATE SET
    "entries" = t."entries" + excluded."entries",
    "supply_cost" = t."supply_cost" + excluded."supply_cost",
    "tax" = t."tax" + excluded."tax",
    "total_amount" = t."total_amount" + excluded."total_amount";
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "revenue_expense_month_totals_on_insert" AFTER INSERT ON "revenue_expense_invoices"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION "revenue_expense_month_totals_add"();
--> statement-breakpoint
CREATE TRIGGER "revenue_expense_month_totals_on_update" AFTER UPDATE ON "revenue_expense_invoices"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION "revenue_expense_month_totals_replace"();
--> statement-breakpoint
CREATE TRIGGER "revenue_expense_month_totals_on_delete" AFTER DELETE ON "revenue_expense_invoices"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION "revenue_expense_month_totals_subtract"();
--> statement-breakpoint
-- The books written before this migration.
INSERT INTO "revenue_expense_month_totals"
  ("account_id", "environment", "month", "direction", "entries", "supply_cost", "tax",
   "total_amount")
SELECT "account_id", "environment", date_trunc('month', "write_date")::date, "direction",
  count(*), sum("supply_cost"), sum("tax"), sum("total_amount")
FROM "revenue_expense_invoices" GROUP BY 1, 2, 3, 4;
