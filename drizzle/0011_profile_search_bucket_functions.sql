-- Profile search (docs/business-profiles.md § Search) caps the partial name matches it ranks, but
-- one GIN lookup still builds the bitmap of every profile that holds the query's grams: 75,000
-- entries for a gram as common as 세탁 in a million profiles, 15 ms before the first row. The
-- profiles are therefore split into 64 buckets by their number, and each gram is indexed with its
-- profile's bucket ("7:세탁"). A search looks the grams up bucket by bucket and stops once it
-- has enough matches: a common gram fills the cap within the first bucket, a rare one costs 64
-- small lookups. Every row also holds its bare bucket ("7:"), which a query without any gram
-- (such as "a  b", whose pieces all hold a space) looks up to read the whole bucket.
CREATE OR REPLACE FUNCTION etax_search_bucket_count() RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT 64 $$;--> statement-breakpoint
-- Digits 6 to 9 of a business registration number are a serial number, spread evenly.
CREATE OR REPLACE FUNCTION etax_search_bucket(business_registration_number text) RETURNS integer
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT substr(business_registration_number, 6, 4)::integer % etax_search_bucket_count()
$$;--> statement-breakpoint
-- The stored grams of a profile: its bucket, then each gram of both names in that bucket.
CREATE OR REPLACE FUNCTION etax_bucketed_name_grams(bucket integer, grams text[]) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_prepend(bucket || ':', coalesce(array_agg(DISTINCT bucket || ':' || gram), '{}'))
    FROM unnest(grams) AS gram
$$;--> statement-breakpoint
-- What a query looks up in one bucket: its grams (etax_query_grams) there, or the bucket itself
-- when it has none.
CREATE OR REPLACE FUNCTION etax_bucketed_query_grams(grams text[], bucket integer) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN cardinality(grams) = 0 THEN ARRAY[bucket || ':']
              ELSE ARRAY(SELECT bucket || ':' || gram FROM unnest(grams) AS gram) END
$$;--> statement-breakpoint
-- Words are also tied to their neighbours: a three-character piece with one whitespace character
-- between two others ("빛 건" of "별빛 건설") is a gram too, so a query of two words no longer
-- has to read every name that holds both words apart. Both functions of migration 0004 gain it;
-- the stored column is computed again by the next migration.
CREATE OR REPLACE FUNCTION etax_name_grams(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT gram ORDER BY gram), '{}')
    FROM (
      SELECT substr(lower(name), position, 1) AS gram
        FROM generate_series(1, char_length(name)) AS position
      UNION ALL
      SELECT substr(lower(name), position, 2)
        FROM generate_series(1, char_length(name) - 1) AS position
      UNION ALL
      SELECT substr(lower(name), position, 3)
        FROM generate_series(1, char_length(name) - 2) AS position
       WHERE substr(lower(name), position + 1, 1) ~ '^\s$'
    ) AS grams
   WHERE gram !~ '^\s|\s$'
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION etax_query_grams(query text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT gram ORDER BY gram), '{}')
    FROM (
      SELECT lower(query) AS gram WHERE char_length(query) = 1
      UNION ALL
      SELECT substr(lower(query), position, 2)
        FROM generate_series(1, char_length(query) - 1) AS position
      UNION ALL
      SELECT substr(lower(query), position, 3)
        FROM generate_series(1, char_length(query) - 2) AS position
       WHERE substr(lower(query), position + 1, 1) ~ '^\s$'
    ) AS grams
   WHERE gram !~ '^\s|\s$'
$$;
