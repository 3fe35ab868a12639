import { sql, type SQL } from 'drizzle-orm';

// SQL text with $n placeholders (pg-boss's statements, the ledger's batch statements) as a
// Drizzle SQL object, so it runs on any executor, inside the caller's transaction. A placeholder
// may appear more than once; each occurrence is bound to its value again.
export function numberedSql(text: string, values: readonly unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const query = [sql.raw(parts[0]!)];
  for (let index = 1; index < parts.length; index += 2) {
    // Drizzle drops an undefined value from the text; pg binds undefined as NULL. An array is
    // one parameter (pg sends it as an array literal), not a list of them.
    const value = values[Number(parts[index]) - 1] ?? null;
    query.push(sql`${sql.param(value)}`, sql.raw(parts[index + 1]!));
  }
  return sql.join(query);
}
