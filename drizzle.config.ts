import { defineConfig } from 'drizzle-kit';

// Platform tables live in src/platform/db/schema.ts; an area's own tables in its schema.ts, or
// in tables.ts, the house name areas move to (src/areas/tax-invoices and its sub-folders). A few
// tables have a schema file of their own next to the code that uses them.
export default defineConfig({
  dialect: 'postgresql',
  schema: [
    './src/platform/db/schema.ts',
    './src/platform/webhooks/schema.ts',
    './src/areas/*/schema.ts',
    './src/areas/**/tables.ts',
    './src/platform/mail/schema.ts',
  ],
  out: './drizzle',
});
