import { PgDialect } from "drizzle-orm/pg-core";
import type { SQL } from "drizzle-orm";
import type { Database } from "../client.ts";

/** Compiles statements as drizzle-kit names the columns: snake_case. */
export const dialect = new PgDialect({ casing: "snake_case" });

/** Compiles a drizzle `sql` fragment to text + parameters and sends it as one statement. */
export async function run<Row>(db: Database, query: SQL): Promise<Row[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  const { rows } = await db.query<Row>(text, params);
  return rows;
}

/** Like run, for statements that always answer exactly one row. */
export async function runOne<Row>(db: Database, query: SQL): Promise<Row> {
  const rows = await run<Row>(db, query);
  if (rows.length !== 1) throw new Error(`expected one row, got ${rows.length}`);
  return rows[0]!;
}
