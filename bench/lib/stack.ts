import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import type { ClosableDatabase } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { startRealtimeServer, type RealtimeServer } from "../../test/setup/realtime-server.ts";
import { createTestDatabase, type TestDatabase } from "../../test/setup/test-database.ts";

// The local stack the bench measures, started the way the test harness starts it
// (test/setup/global-setup.ts): a fresh database (created and dropped on DATABASE_URL's server, or
// an in-memory PGlite), the SQL endpoint the Worker's driver dials, the Worker in workerd, and
// `partykit dev` for the realtime room.

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface BenchStack {
  kind: "server" | "embedded";
  databaseLabel: string;
  databaseUrl: string;
  /** Node-side pg pool for loading data and the SQL ceiling. */
  db: ClosableDatabase;
  sqlEndpoint: SqlEndpoint;
  workerUrl: string;
  /** With `inspector`: wrangler's V8 inspector for the Worker (test/helpers/isolate-heap.ts); else "". */
  inspectorUrl: string;
  realtimeUrl: string;
  realtimeSecret: string;
  close(): Promise<void>;
}

type Worker = { url: Promise<URL>; inspectorUrl: Promise<URL | undefined>; dispose(): Promise<void> };

export async function startBenchStack(options: { realtime: boolean; inspector?: boolean }): Promise<BenchStack> {
  const cleanups: (() => Promise<unknown> | undefined)[] = [];
  const close = async () => {
    for (const cleanup of cleanups.reverse())
      await Promise.resolve()
        .then(cleanup)
        .catch(() => {});
  };
  let database: TestDatabase | undefined;
  const onExit = () => database?.disposeSync();
  process.on("exit", onExit);
  cleanups.push(async () => process.off("exit", onExit));
  try {
    database = await createTestDatabase(process.env.DATABASE_URL);
    const dbHandle = database;
    cleanups.push(() => dbHandle.dispose());
    await database.ready;
    const sqlEndpoint = await startSqlEndpoint({ target: database.target });
    cleanups.push(() => sqlEndpoint.close());
    const secret = randomBytes(24).toString("hex");
    const workerPort = await reserveFreePort();
    let realtimePort = await reserveFreePort();
    while (realtimePort === workerPort) realtimePort = await reserveFreePort();
    const realtimeUrl = `http://127.0.0.1:${realtimePort}`;
    const { unstable_startWorker } = await import("wrangler");
    const bindings = {
      PUBLIC_ORIGIN: `http://127.0.0.1:${workerPort}`,
      DATABASE_URL: database.url,
      LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
      // Over wrangler.toml's [vars], which are a deployment's: no room unless one is asked for.
      ...(options.realtime ? { REALTIME_URL: realtimeUrl, REALTIME_SECRET: secret } : { REALTIME_URL: "" }),
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      AUTH_SECRET: randomBytes(32).toString("hex"),
    };
    const worker: Worker = await unstable_startWorker({
      // BENCH_WRANGLER_CONFIG: another build of the Worker (a copy of the code before a change), to
      // measure before and after on the same machine.
      config: process.env.BENCH_WRANGLER_CONFIG ?? `${ROOT}wrangler.toml`,
      bindings: Object.fromEntries(Object.entries(bindings).map(([name, value]) => [name, { type: "plain_text" as const, value }])),
      dev: {
        server: { hostname: "127.0.0.1", port: workerPort },
        inspector: options.inspector ? { hostname: "127.0.0.1", port: 0 } : false,
        watch: false,
        persist: false,
        logLevel: "none",
      },
    });
    cleanups.push(() => worker.dispose());
    const workerUrl = (await worker.url).origin;
    const inspectorUrl = options.inspector ? ((await worker.inspectorUrl)?.href ?? "") : "";
    if (options.realtime) {
      const realtime: RealtimeServer = await startRealtimeServer({ port: realtimePort, secret, apiUrl: workerUrl });
      // Also when the process ends without closing the stack (wrangler, in this process, exits on SIGTERM).
      const killRealtime = () => realtime.killNow();
      process.on("exit", killRealtime);
      cleanups.push(async () => process.off("exit", killRealtime));
      cleanups.push(() => realtime.dispose());
    }
    const db = connectNodeDatabase(database.url, { max: 8 });
    cleanups.push(() => db.close());
    return {
      kind: database.kind,
      databaseLabel: database.label,
      databaseUrl: database.url,
      db,
      sqlEndpoint,
      workerUrl,
      inspectorUrl,
      realtimeUrl,
      realtimeSecret: secret,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
