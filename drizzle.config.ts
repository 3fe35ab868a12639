import { defineConfig } from 'drizzle-kit';

// Every Drizzle table lives in a tables.ts: the platform's beside the mechanism that owns them,
// an area's in its folder (or a sub-folder of it), the dashboard's in src/dashboard/. Migrations
// in drizzle/ are generated from all of them with `npx drizzle-kit generate` and committed.
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/platform/**/tables.ts',
    './src/areas/**/tables.ts',
    './src/dashboard/**/tables.ts',
  ],
  out: './drizzle',
});
