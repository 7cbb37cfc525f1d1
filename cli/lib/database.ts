import type { Database } from "../../db/client.ts";
import { migrateAndReport, type MigrationReport } from "../../db/migrate.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { findRunningDevServer } from "./dev-state.ts";
import { startEmbeddedPostgres } from "./embedded-postgres.ts";
import { CommandError, isSystemError } from "./errors.ts";
import { PGLITE_DIR } from "./paths.ts";
import { lockPgliteDir } from "./pglite-lock.ts";

export interface CliDatabase {
  db: Database;
  /** Where the data lives, in words, for human output. */
  location: string;
  migrations: MigrationReport;
  close(): Promise<void>;
}

interface Connection {
  url: string;
  location: string;
  /** Stops whatever this process started to serve the database. */
  release(): Promise<void>;
}

/**
 * The database a CLI command works on, migrated: DATABASE_URL when set; else the embedded database
 * of a running `npm run dev` (over TCP, since only one process may open PGlite's directory); else
 * the embedded database opened in this process for the duration of the command.
 */
export async function openCliDatabase(): Promise<CliDatabase> {
  const connection = await connect();
  const db = connectNodeDatabase(connection.url);
  let closing: Promise<void> | undefined;
  // Idempotent: Ctrl-C and the command's own ending may both close.
  const close = () =>
    (closing ??= (async () => {
      try {
        await db.close();
      } finally {
        await connection.release();
      }
    })());
  try {
    const migrations = await migrateAndReport(db, connection.url);
    return { db, location: connection.location, migrations, close };
  } catch (error) {
    await close();
    throw isSystemError(error) ? new CommandError(`cannot reach the database at ${connection.location}: ${error.message}`) : error;
  }
}

async function connect(): Promise<Connection> {
  const url = process.env.DATABASE_URL;
  if (url) return { url, location: `DATABASE_URL (${describeUrl(url)})`, release: async () => {} };

  const dev = await findRunningDevServer();
  if (dev?.embeddedPostgres) {
    return { url: dev.embeddedPostgres.url, location: `the embedded database of npm run dev (pid ${dev.pid})`, release: async () => {} };
  }

  const unlock = lockPgliteDir(`an opsroom command (${process.argv.slice(2).join(" ")})`);
  try {
    const embedded = await startEmbeddedPostgres({ dataDir: PGLITE_DIR });
    return {
      url: embedded.url,
      location: "the embedded database in .data/pglite",
      release: async () => {
        try {
          await embedded.stop();
        } finally {
          unlock();
        }
      },
    };
  } catch (error) {
    unlock();
    throw error;
  }
}

/** host:port/database without the credentials, for messages. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    throw new CommandError("DATABASE_URL is not a valid postgres:// URL");
  }
}
