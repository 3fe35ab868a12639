-- Profile search (docs/business-profiles.md § Search) matches names through their one- and
-- two-character pieces ("grams"): Korean words are short, and a two-syllable query such as 도윤
-- has no trigram that pg_trgm could look up, while every substring of two or more characters
-- contains all of its two-character pieces. A gram with whitespace at an edge is left out, so
-- words are matched within themselves. Both functions are immutable: the first computes the
-- stored column, the second the query's grams, each in the database, so both sides agree.
CREATE OR REPLACE FUNCTION etax_name_grams(name text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT gram ORDER BY gram), '{}')
    FROM (
      SELECT substr(lower(name), position, 1) AS gram
        FROM generate_series(1, char_length(name)) AS position
      UNION ALL
      SELECT substr(lower(name), position, 2)
        FROM generate_series(1, char_length(name) - 1) AS position
    ) AS grams
   WHERE gram !~ '^\s|\s$'
$$;--> statement-breakpoint
-- A one-character query looks up that character; a longer one every two-character piece.
CREATE OR REPLACE FUNCTION etax_query_grams(query text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT gram ORDER BY gram), '{}')
    FROM (
      SELECT lower(query) AS gram WHERE char_length(query) = 1
      UNION ALL
      SELECT substr(lower(query), position, 2)
        FROM generate_series(1, char_length(query) - 1) AS position
    ) AS grams
   WHERE gram !~ '^\s|\s$'
$$;
