DROP INDEX "business_profiles_organization_name_trgm";--> statement-breakpoint
DROP INDEX "business_profiles_representative_name_trgm";--> statement-breakpoint
ALTER TABLE "business_profiles" ADD COLUMN "name_grams" text[] GENERATED ALWAYS AS (etax_name_grams(
      coalesce(organization_name, '')) || etax_name_grams(coalesce(representative_name, ''))) STORED NOT NULL;--> statement-breakpoint
CREATE INDEX "business_profiles_name_grams" ON "business_profiles" USING gin ("name_grams");--> statement-breakpoint
CREATE INDEX "business_profiles_organization_name_lower" ON "business_profiles" USING btree (lower("organization_name"));--> statement-breakpoint
CREATE INDEX "business_profiles_representative_name_lower" ON "business_profiles" USING btree (lower("representative_name"));