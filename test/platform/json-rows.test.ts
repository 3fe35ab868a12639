// Inserting rows as one JSON parameter: every value arrives as the driver would have sent it
// (hostile text, unpaired surrogates, jsonb objects, nulls, defaults), rows are numbered in the
// order given, and conflicts and returning behave as in a plain insert.
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEvents } from '../../src/areas/webhooks/tables.ts';
import { insertJsonRows, wellFormedJson } from '../../src/platform/db/json-rows.ts';
import { idempotencyClaims } from '../../src/platform/db/tables.ts';
import { newId } from '../../src/domain/ids.ts';
import { createTestApp, type TestApp } from '../helpers/app.ts';

let app: TestApp;
beforeAll(async () => {
  app = await createTestApp();
});
afterAll(async () => {
  await app?.close();
});

const HOSTILE = ['주식회사 "따옴표" \\ 백슬래시', 'line\nbreak\ttab', '😀 emoji', '\'; drop table x; --',
  '<script>alert(1)</script>', '\u2028\u2029'];

describe('inserting rows as one JSON parameter', () => {
  it('stores every value as a plain insert would, defaults included', async () => {
    const db = app.platform.database.db;
    const rows = HOSTILE.map((text, index) => ({ id: newId('idempotencyClaim'),
      apiKeyId: `key_json_${index}`, namespace: 'cashReceipt', referenceId: text,
      fingerprint: 'f'.repeat(64), responseStatus: 202,
      responseBody: { issuanceKey: text, nested: { list: [1, null, 'x'] } } }));
    const result = await db.execute<{ id: string }>(insertJsonRows(idempotencyClaims, rows,
      { onConflictDoNothing: true, returning: 'id' }));
    expect(new Set(result.rows.map((row) => row.id))).toEqual(new Set(rows.map((row) => row.id)));
    const stored = await db.select().from(idempotencyClaims)
      .where(inArray(idempotencyClaims.id, rows.map((row) => row.id)));
    for (const row of rows) {
      const found = stored.find((candidate) => candidate.id === row.id)!;
      expect(found).toMatchObject({ referenceId: row.referenceId,
        responseBody: row.responseBody, responseStatus: 202 });
      expect(found.createdAt).toBeInstanceOf(Date);
    }
    // The same ids again: nothing inserted, nothing returned.
    const again = await db.execute<{ id: string }>(insertJsonRows(idempotencyClaims, rows,
      { onConflictDoNothing: true, returning: 'id' }));
    expect(again.rows).toEqual([]);
  });

  it('replaces an unpaired surrogate, as the driver does with a parameter', async () => {
    const db = app.platform.database.db;
    const id = newId('idempotencyClaim');
    await db.execute(insertJsonRows(idempotencyClaims, [{ id, apiKeyId: 'key_json_surrogate',
      namespace: 'cashReceipt', referenceId: 'half \ud800 pair', fingerprint: 'f'.repeat(64) }]));
    const [row] = await db.select().from(idempotencyClaims).where(eq(idempotencyClaims.id, id));
    expect(row).toMatchObject({ referenceId: 'half \ufffd pair', responseStatus: null,
      responseBody: null });
  });

  it('skips only the rows that conflict on the column named, and fails on any other conflict',
    async () => {
      const db = app.platform.database.db;
      const claim = (id: string, referenceId: string) => ({ id, apiKeyId: 'key_json_target',
        namespace: 'cashReceipt', referenceId, fingerprint: 'f'.repeat(64) });
      const first = claim(newId('idempotencyClaim'), 'target-1');
      await db.execute(insertJsonRows(idempotencyClaims, [first]));
      const again = await db.execute<{ id: string }>(insertJsonRows(idempotencyClaims,
        [first, claim(newId('idempotencyClaim'), 'target-2')],
        { onConflictDoNothing: 'id', returning: 'id' }));
      expect(again.rows).toHaveLength(1);
      // The same reference id under a new id conflicts on another unique index.
      await expect(db.execute(insertJsonRows(idempotencyClaims,
        [claim(newId('idempotencyClaim'), 'target-1')], { onConflictDoNothing: 'id' })))
        .rejects.toThrow();
      const stored = await db.select().from(idempotencyClaims)
        .where(eq(idempotencyClaims.apiKeyId, 'key_json_target'));
      expect(stored.map((row) => row.referenceId).sort()).toEqual(['target-1', 'target-2']);
    });

  it('numbers the rows in the order given', async () => {
    const db = app.platform.database.db;
    const ids = Array.from({ length: 30 }, () => newId('webhookEvent'));
    await db.execute(insertJsonRows(webhookEvents, ids.map((id, index) => ({ id,
      accountId: 'acc_json_order', environment: 'test', type: 'TEST', data: { index } }))));
    const stored = await db.select().from(webhookEvents)
      .where(eq(webhookEvents.accountId, 'acc_json_order')).orderBy(webhookEvents.sequence);
    expect(stored.map((row) => row.id)).toEqual(ids);
  });

  it('refuses rows that set different columns', () => {
    expect(() => insertJsonRows(idempotencyClaims, [
      { id: 'a', apiKeyId: 'k', namespace: 'n', referenceId: 'r', fingerprint: 'f' },
      { id: 'b', apiKeyId: 'k', namespace: 'n', referenceId: 'r', fingerprint: 'f',
        responseStatus: 202 },
    ])).toThrow(/set different columns/);
  });
});

// String.prototype.toWellFormed (ES2024): Node 20 has it, this project's TypeScript target does
// not declare it.
const wellFormed = (text: string) => (text as string & { toWellFormed(): string }).toWellFormed();

describe('the JSON text of the rows', () => {
  // Strings of the pieces that make the escapes hard to tell apart: backslashes, text that reads
  // like an escape once after a backslash, unpaired and paired surrogates, quotes.
  const ALPHABET = ['\\', '\\ud8', 'ud8', 'u', 'd', '8', 'f', '0', '00', '\ud800', '\udbff',
    '\udc00', '\udfff', '😀', 'a', '"', '\n'];
  function* strings(count: number) {
    let seed = 20_261_128;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed;
    };
    for (let index = 0; index < count; index += 1) {
      const length = next() % 13;
      yield Array.from({ length }, () => ALPHABET[next() % ALPHABET.length]).join('');
    }
  }

  it('reads back as each string made well formed, and as nothing else', () => {
    for (const text of strings(20_000)) {
      const record = { text, nested: { list: [text, 1, null] } };
      expect(JSON.parse(wellFormedJson([record]))).toEqual([{ text: wellFormed(text),
        nested: { list: [wellFormed(text), 1, null] } }]);
    }
  });

  it('leaves text without unpaired surrogates as JSON.stringify writes it', () => {
    const records = HOSTILE.map((text) => ({ text, escaped: `\\ud800 ${text}` }));
    expect(wellFormedJson(records)).toBe(JSON.stringify(records));
  });
});
