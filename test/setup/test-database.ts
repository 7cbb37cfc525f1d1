import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startEmbeddedPostgres } from "../../cli/lib/embedded-postgres.ts";
import { runMigrations } from "../../db/migrate.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

// The database one test run works in: a fresh, uniquely named database on the server that
// DATABASE_URL points at (so parallel runs and a developer's own data never meet), or an in-memory
// PGlite when DATABASE_URL is unset. Either way migrated and empty.

export interface TestDatabase {
  kind: "server" | "embedded";
  /** postgres:// URL of the test database, known before it is ready. */
  url: string;
  /** Host and port of the server, for the local SQL endpoint. */
  target: { host: string; port: number };
  /** Where it lives, for the harness's log line. */
  label: string;
  /** Resolves once the database exists and is migrated (the Worker can start meanwhile). */
  ready: Promise<void>;
  /** Drops (or stops) it, after `ready` settled. Safe to call twice. */
  dispose(): Promise<void>;
  /** Synchronous last resort for process exit (Ctrl-C): drops the database if dispose did not run. */
  disposeSync(): void;
}

export const TEST_DATABASE_PREFIX = "opsroom_test_";
const TEST_DATABASE_NAME = /^opsroom_test_(\d+)_[0-9a-f]+$/;
/** A test database this old with nobody connected was left by a killed run (kill -9, a crash). */
const STALE_AFTER_MS = 6 * 60 * 60 * 1000;

/** Names the database and starts making it; `ready` tells when it can be used. */
export async function createTestDatabase(serverUrl: string | undefined): Promise<TestDatabase> {
  return serverUrl ? createOnServer(serverUrl) : createEmbedded();
}

async function createEmbedded(): Promise<TestDatabase> {
  // The port is chosen first so the SQL endpoint and the Worker can start while PGlite initialises.
  const port = await freePort();
  const starting = startEmbeddedPostgres({ port }).then(async (embedded) => {
    try {
      await runMigrations(embedded.url);
    } catch (error) {
      await embedded.stop();
      throw error;
    }
    return embedded;
  });
  starting.catch(() => {}); // awaited by the harness later (see createOnServer)
  let stopped = false;
  return {
    kind: "embedded",
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    target: { host: "127.0.0.1", port },
    label: `embedded PGlite (in memory, port ${port})`,
    ready: starting.then(() => {}),
    async dispose() {
      if (stopped) return;
      stopped = true;
      const embedded = await starting.catch(() => undefined);
      await embedded?.stop();
    },
    // In memory: nothing outlives the process.
    disposeSync() {},
  };
}

async function createOnServer(serverUrl: string): Promise<TestDatabase> {
  const name = `${TEST_DATABASE_PREFIX}${Date.now()}_${randomBytes(4).toString("hex")}`;
  const url = withDatabase(serverUrl, name);
  let created = false;
  let dropped = false;

  // Reachability is checked before anything else starts, so a stopped server fails fast and clearly.
  const admin = await connectAdmin(serverUrl);
  const ready = (async () => {
    try {
      await dropStaleTestDatabases(admin);
      await admin.query(`create database "${name}"`);
      created = true;
    } finally {
      await admin.end();
    }
    await runMigrations(url);
  })();

  // Awaited by the harness later; until then a failure must not count as an unhandled rejection.
  ready.catch(() => {});

  const drop = async () => {
    await ready.catch(() => {});
    if (dropped || !created) return;
    const client = await connectAdmin(serverUrl);
    try {
      await client.query(`drop database if exists "${name}" with (force)`);
      dropped = true;
    } finally {
      await client.end();
    }
  };
  const { hostname, port } = new URL(serverUrl);

  return {
    kind: "server",
    url,
    target: { host: hostname || "localhost", port: Number(port || 5432) },
    label: `${name} on ${redact(serverUrl)}`,
    ready,
    dispose: drop,
    disposeSync() {
      if (dropped) return;
      dropped = true;
      // An exit handler cannot await; a child process run synchronously can still talk to Postgres.
      // (Run even when `created` is not yet known: CREATE DATABASE may have been sent.)
      const script = `
        const pg = require("pg");
        const client = new pg.Client({ connectionString: process.env.ADMIN_URL, connectionTimeoutMillis: 3000 });
        client.connect()
          .then(() => client.query('drop database if exists "' + process.env.TEST_DATABASE + '" with (force)'))
          .catch((e) => { console.error("could not drop " + process.env.TEST_DATABASE + ": " + e.message); process.exitCode = 1; })
          .finally(() => client.end().catch(() => {}));`;
      spawnSync(process.execPath, ["-e", script], {
        cwd: ROOT,
        env: { ...process.env, ADMIN_URL: serverUrl, TEST_DATABASE: name },
        stdio: ["ignore", "ignore", "inherit"],
        timeout: 10_000,
      });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function connectAdmin(serverUrl: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => {});
    const reason = error instanceof Error ? error.message || (error as NodeJS.ErrnoException).code : String(error);
    throw new Error(
      `Cannot reach Postgres at ${redact(serverUrl)} (DATABASE_URL): ${reason}.\n` +
        "Start the server (on the dev machine: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start), " +
        "fix DATABASE_URL, or unset DATABASE_URL to test against the embedded PGlite.",
      { cause: error },
    );
  }
  return client;
}

/** Drops test databases left by runs that were killed before their teardown. */
async function dropStaleTestDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string; connections: number }>(
    `select d.datname, (select count(*)::int from pg_stat_activity a where a.datname = d.datname) as connections
       from pg_database d where d.datname like 'opsroom\\_test\\_%'`,
  );
  const now = Date.now();
  for (const { datname, connections } of rows) {
    const match = TEST_DATABASE_NAME.exec(datname);
    if (!match || connections > 0 || now - Number(match[1]) < STALE_AFTER_MS) continue;
    await admin.query(`drop database if exists "${datname}" with (force)`).catch(() => {});
  }
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The URL without its password, fit for logs and error messages. */
export function redact(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return "(unparseable DATABASE_URL)";
  }
}
