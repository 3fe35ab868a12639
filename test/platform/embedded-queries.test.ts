// The embedded database serves many clients over one PGlite. Each extended-protocol query
// (Parse, Bind, Execute, Sync) must run as a unit: with another client's Parse between a Parse
// and its Bind, the Bind would meet the wrong statement (src/platform/db/pglite-queue.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedDatabase, type EmbeddedDatabase } from '../../src/platform/db/embedded.ts';

const CLIENTS = 8;
const QUERIES_PER_CLIENT = 60;

describe('many clients of the embedded database at once', () => {
  let dataDir: string;
  let database: EmbeddedDatabase;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'etq-'));
    database = await openEmbeddedDatabase(dataDir, { holder: 'command', waitMs: 0 });
  });
  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers every parameterized query with its own statement and values', async () => {
    const clients = await Promise.all(Array.from({ length: CLIENTS }, async () => {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      return client;
    }));
    try {
      // Client k sends statements with k + 1 parameters, so a Bind that meets another client's
      // statement fails or sums the wrong values.
      const results = await Promise.all(clients.flatMap((client, clientIndex) =>
        Array.from({ length: QUERIES_PER_CLIENT }, async (_, queryIndex) => {
          const values = Array.from({ length: clientIndex + 1 }, (_, n) => queryIndex * 100 + n);
          const text = `select ${values.map((_, n) => `$${n + 1}::int`).join(' + ')} as sum`;
          // Every third query of the odd clients runs in a transaction of its own.
          const inTransaction = clientIndex % 2 === 1 && queryIndex % 3 === 0;
          if (inTransaction) await client.query('begin');
          const { rows } = await client.query<{ sum: number }>(text, values);
          if (inTransaction) await client.query('commit');
          return { expected: values.reduce((a, b) => a + b, 0), actual: rows[0]?.sum ?? null };
        })));
      expect(results.filter(({ expected, actual }) => expected !== actual)).toEqual([]);
      expect(results).toHaveLength(CLIENTS * QUERIES_PER_CLIENT);
    } finally {
      await Promise.all(clients.map((client) => client.end()));
    }
  });
});
