DROP INDEX "business_profiles_number_prefix";--> statement-breakpoint
ALTER TABLE "business_profiles" drop column "name_grams";--> statement-breakpoint
ALTER TABLE "business_profiles" ADD COLUMN "name_grams" text[] GENERATED ALWAYS AS (etax_bucketed_name_grams(
      etax_search_bucket(business_registration_number),
      etax_name_grams(coalesce(organization_name, ''))
        || etax_name_grams(coalesce(representative_name, '')))) STORED NOT NULL;--> statement-breakpoint
-- Dropping the column dropped its index; the snapshot still holds it, so it is made here again.
CREATE INDEX "business_profiles_name_grams" ON "business_profiles" USING gin ("name_grams");
