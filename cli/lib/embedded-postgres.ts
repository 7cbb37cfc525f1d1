import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";

export interface EmbeddedPostgres {
  /** A postgres:// URL any Postgres client (pg, the ws bridge) can use. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Postgres in this process (PGlite), served on a TCP port with the Postgres wire protocol.
 * `dataDir` keeps the data on disk; without it the database lives in memory (tests).
 * The socket server queues queries from all connections onto the one PGlite instance and keeps an
 * open transaction's queries together; its default of one connection would drop the Worker's
 * per-request pools, hence the high limit.
 */
export async function startEmbeddedPostgres(options: { dataDir?: string; port?: number; host?: string } = {}): Promise<EmbeddedPostgres> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const host = options.host ?? "127.0.0.1";
  const server = new PGLiteSocketServer({ db, host, port: options.port ?? 0, maxConnections: 500 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  const port = Number(server.getServerConn().split(":").pop());
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    port,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
