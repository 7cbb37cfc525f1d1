import { describeUrl } from "../lib/database.ts";
import { startEmbeddedPostgres } from "../lib/embedded-postgres.ts";
import { CommandError } from "../lib/errors.ts";
import { PGLITE_DIR } from "../lib/paths.ts";
import { lockPgliteDir } from "../lib/pglite-lock.ts";
import { reserveFreePort } from "./ports.ts";

/**
 * The database of a dev session. Its address is known before it runs, so the SQL endpoint, the Worker
 * and the realtime server can start while the database itself starts (PGlite takes seconds).
 */
export interface DevDatabase {
  url: string;
  /** Where the local SQL endpoint dials: the Worker always reaches Postgres through it. */
  target: { host: string; port: number };
  description: string;
  /** Names the database without credentials: "embedded", or DATABASE_URL's host:port/name. */
  label: string;
  /** Set when this process serves the embedded database (other local tools connect to it). */
  embedded: { url: string; port: number } | null;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** DATABASE_URL's Postgres when set; otherwise the embedded one, on a free port, locked for this process. */
export async function prepareDevDatabase(): Promise<DevDatabase> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const location = describeUrl(url);
    const parsed = new URL(url);
    if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new CommandError("DATABASE_URL must be a postgres:// URL");
    return {
      url,
      target: { host: parsed.hostname, port: Number(parsed.port || 5432) },
      description: `Postgres from DATABASE_URL (${location})`,
      label: location,
      embedded: null,
      start: async () => {},
      stop: async () => {},
    };
  }
  const unlock = lockPgliteDir("npm run dev");
  const port = await reserveFreePort();
  // The URL startEmbeddedPostgres will serve, known before it starts.
  const embeddedUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopPostgres = async () => {};
  return {
    url: embeddedUrl,
    target: { host: "127.0.0.1", port },
    description: `embedded Postgres (PGlite, .data/pglite) on 127.0.0.1:${port}`,
    label: "embedded",
    embedded: { url: embeddedUrl, port },
    async start() {
      const postgres = await startEmbeddedPostgres({ dataDir: PGLITE_DIR, port });
      stopPostgres = postgres.stop;
    },
    async stop() {
      try {
        await stopPostgres();
      } finally {
        unlock();
      }
    },
  };
}
