import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "../../db/client.ts";
import { MIGRATIONS_FOLDER, runMigrations } from "../../db/migrate.ts";

export interface MigrationReport {
  /** Migrations applied by this run (0 when the database was up to date). */
  applied: number;
  /** Migrations in db/migrations. */
  total: number;
}

/** Applies pending migrations and says how many there were. */
export async function migrateAndReport(db: Database, url: string): Promise<MigrationReport> {
  const before = await countAppliedMigrations(db);
  await runMigrations(url);
  const after = await countAppliedMigrations(db);
  return { applied: after - before, total: countCommittedMigrations() };
}

async function countAppliedMigrations(db: Database): Promise<number> {
  // drizzle's bookkeeping table; absent until the first migration ran.
  const { rows } = await db.query<{ exists: boolean }>(
    "select to_regclass('drizzle.__drizzle_migrations') is not null as exists",
  );
  if (!rows[0]?.exists) return 0;
  const count = await db.query<{ n: number }>("select count(*)::int as n from drizzle.__drizzle_migrations");
  return count.rows[0]!.n;
}

function countCommittedMigrations(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}
