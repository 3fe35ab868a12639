import { defineConfig } from 'drizzle-kit';

// Platform tables live in src/platform/db/schema.ts; an area's own tables in its schema.ts.
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/platform/db/schema.ts',
    './src/platform/webhooks/schema.ts',
    './src/areas/*/schema.ts',
  ],
  out: './drizzle',
});
