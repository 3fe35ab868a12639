CREATE TABLE "business_former_names" (
	"business_registration_number" text NOT NULL,
	"order_index" integer NOT NULL,
	"name" text NOT NULL,
	"changed_on" date,
	CONSTRAINT "business_former_names_business_registration_number_order_index_pk" PRIMARY KEY("business_registration_number","order_index"),
	CONSTRAINT "business_former_names_order_range" CHECK ("business_former_names"."order_index" between 0 and 99),
	CONSTRAINT "business_former_names_name_length" CHECK (char_length("business_former_names"."name") between 1 and 200)
);
--> statement-breakpoint
CREATE TABLE "business_profiles" (
	"business_registration_number" text PRIMARY KEY NOT NULL,
	"corporate_registration_number" text,
	"business_kind" text,
	"commercial_sales_number" text,
	"organization_name" text,
	"organization_name_english" text,
	"representative_name" text,
	"road_address" text,
	"postal_code" text,
	"sido_code" text,
	"sigungu_code" text,
	"phone" text,
	"email" text,
	"websites" text[] DEFAULT '{}'::text[] NOT NULL,
	"business_type" text,
	"business_item" text,
	"standard_industry_code" text,
	"standard_industry_name" text,
	"category_code" text,
	"opened_on" date,
	"business_registered_on" date,
	"corporation_established_on" date,
	"registration_status" text,
	"registration_closed_on" date,
	"registration_checked_at" timestamp with time zone,
	"taxation_type" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "business_profiles_number_digits" CHECK ("business_profiles"."business_registration_number" ~ '^[0-9]{10}$'),
	CONSTRAINT "business_profiles_corporate_number_digits" CHECK ("business_profiles"."corporate_registration_number" ~ '^[0-9]{13}$'),
	CONSTRAINT "business_profiles_kind_known" CHECK ("business_profiles"."business_kind" in ('INDIVIDUAL', 'CORPORATE')),
	CONSTRAINT "business_profiles_text_length" CHECK (char_length("business_profiles"."commercial_sales_number") <= 50
        and char_length("business_profiles"."organization_name") <= 200
        and char_length("business_profiles"."organization_name_english") <= 200
        and char_length("business_profiles"."representative_name") <= 100
        and char_length("business_profiles"."road_address") <= 300
        and char_length("business_profiles"."phone") <= 30
        and char_length("business_profiles"."email") <= 254
        and char_length("business_profiles"."business_type") <= 200
        and char_length("business_profiles"."business_item") <= 200
        and char_length("business_profiles"."standard_industry_name") <= 200),
	CONSTRAINT "business_profiles_postal_code_digits" CHECK ("business_profiles"."postal_code" ~ '^[0-9]{5}$'),
	CONSTRAINT "business_profiles_sido_code_digits" CHECK ("business_profiles"."sido_code" ~ '^[0-9]{2}$'),
	CONSTRAINT "business_profiles_sigungu_code_digits" CHECK ("business_profiles"."sigungu_code" ~ '^[0-9]{5}$'),
	CONSTRAINT "business_profiles_websites_count" CHECK (coalesce(array_length("business_profiles"."websites", 1), 0) <= 20),
	CONSTRAINT "business_profiles_standard_industry_code" CHECK ("business_profiles"."standard_industry_code" ~ '^[0-9]{5}$'),
	CONSTRAINT "business_profiles_standard_industry_pair" CHECK (("business_profiles"."standard_industry_code" is null) = ("business_profiles"."standard_industry_name" is null)),
	CONSTRAINT "business_profiles_category_code" CHECK ("business_profiles"."category_code" ~ '^[A-U]$'),
	CONSTRAINT "business_profiles_registration_status_known" CHECK ("business_profiles"."registration_status" in
        ('ACTIVE', 'SUSPENDED', 'CLOSED', 'NOT_REGISTERED', 'UNKNOWN')),
	CONSTRAINT "business_profiles_registration_pair" CHECK (("business_profiles"."registration_status" is null) = ("business_profiles"."registration_checked_at" is null)),
	CONSTRAINT "business_profiles_closed_on_only_closed" CHECK ("business_profiles"."registration_closed_on" is null or "business_profiles"."registration_status" = 'CLOSED'),
	CONSTRAINT "business_profiles_taxation_type_known" CHECK ("business_profiles"."taxation_type" in ('GENERAL', 'SIMPLIFIED_RECEIPT_ISSUER',
        'SIMPLIFIED_TAX_INVOICE_ISSUER', 'SPECIAL_TAXPAYER', 'TAX_FREE', 'NONPROFIT',
        'UNIQUE_NUMBER_ORGANIZATION'))
);
--> statement-breakpoint
ALTER TABLE "point_reservations" DROP CONSTRAINT "point_reservations_capture_within_reserve";--> statement-breakpoint
ALTER TABLE "business_former_names" ADD CONSTRAINT "business_former_names_business_registration_number_business_profiles_business_registration_number_fk" FOREIGN KEY ("business_registration_number") REFERENCES "public"."business_profiles"("business_registration_number") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "point_reservations" ADD CONSTRAINT "point_reservations_capture_within_reserve" CHECK ("point_reservations"."captured_points" is null
        or "point_reservations"."captured_points" between 0 and "point_reservations"."reserved_points");