DROP INDEX "business_profiles_organization_name_lower";--> statement-breakpoint
DROP INDEX "business_profiles_representative_name_lower";--> statement-breakpoint
CREATE INDEX "business_profiles_organization_name_exact" ON "business_profiles" USING btree (lower("organization_name"),"business_registration_number");--> statement-breakpoint
CREATE INDEX "business_profiles_representative_name_exact" ON "business_profiles" USING btree (lower("representative_name"),"business_registration_number");