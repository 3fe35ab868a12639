-- Trigram matching for profile search (docs/business-profiles.md § Search). On PostgreSQL the
-- migrating role needs the right to create the extension (superuser, or a trusted-extension
-- grant: pg_trgm is trusted since PostgreSQL 13, so CREATE on the database suffices); the
-- embedded PGlite database loads it in src/platform/db/embedded.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
