import type { Db } from "./client";
import type { DbProvider } from "./config";

// Multi-row INSERTs through Prisma's raw-SQL path: createMany through the driver adapters
// runs at ~5k rows/s here, far too slow for graph edges (80 per paper). One statement per
// chunk, with placeholders in the provider's syntax, keeps it portable and ~10× faster.

type Value = string | number | boolean | null;

/** Parameters per statement: under SQLite's 32,766 and PostgreSQL's 65,535 limits. */
const MAX_PARAMS = 30_000;

function placeholder(provider: string, n: number): string {
  return provider === "postgresql" ? `$${n}` : "?";
}

/**
 * Inserts rows into `table` (trusted identifiers from our own schema, never user input).
 * Run it inside a transaction when the rows must land together.
 */
export async function bulkInsert(
  db: Pick<Db, "$executeRawUnsafe">,
  provider: DbProvider,
  table: string,
  columns: readonly string[],
  rows: readonly Value[][],
): Promise<number> {
  if (rows.length === 0) return 0;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const head = `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES `;
  let inserted = 0;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const params: Value[] = [];
    const tuples = chunk.map((row) => {
      const marks = row.map((v) => {
        params.push(v);
        return placeholder(provider, params.length);
      });
      return `(${marks.join(", ")})`;
    });
    inserted += await db.$executeRawUnsafe(head + tuples.join(", "), ...params);
  }
  return inserted;
}
