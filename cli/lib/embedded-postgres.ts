import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { servePGlite, type PGliteServer } from "./pglite-server.ts";

export interface EmbeddedPostgres {
  /** A postgres:// URL any Postgres client (pg, the local SQL endpoint) can use. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Postgres in this process (PGlite), served on a TCP port with the Postgres wire protocol.
 * `dataDir` keeps the data on disk; without it the database lives in memory (tests).
 * Connections take turns on the one PGlite session, a whole request at a time (pglite-server.ts).
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number; host?: string } = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const host = options.host ?? "127.0.0.1";
  let server: PGliteServer;
  try {
    server = await servePGlite(db, { host, port: options.port ?? 0 });
  } catch (error) {
    await db.close();
    throw error;
  }
  const port = server.port;
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    port,
    async stop() {
      await server.close();
      await db.close();
    },
  };
}
