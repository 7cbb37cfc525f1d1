import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import { startWsBridge, type WsBridge } from "../../cli/lib/ws-bridge.ts";
import { startRealtimeStub, type RealtimeStub } from "./realtime-stub.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";

// Starts, once for the whole run, what every test file talks to: a migrated test database, the
// WebSocket bridge the Worker's neon driver dials, a stand-in realtime server, and the Worker in
// workerd. Test files run in Node and reach the Worker over real HTTP (inject("workerUrl")) and
// the database directly (inject("databaseUrl")) to arrange fixtures and to check that refused
// calls left no trace.

declare module "vitest" {
  export interface ProvidedContext {
    /** Origin of the Worker under test, e.g. http://127.0.0.1:53211 */
    workerUrl: string;
    /** postgres:// URL of the test database (the same one the Worker uses). */
    databaseUrl: string;
    /** Where the test database lives: a Postgres server (DATABASE_URL) or the embedded PGlite. */
    databaseKind: "server" | "embedded";
    /** Origin of the realtime stand-in the Worker publishes to. */
    realtimeStubUrl: string;
  }
}

// Offline machines: no request.cf download, no metrics.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

type Worker = { url: Promise<URL>; dispose(): Promise<void> };

export default async function setup(project: TestProject) {
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const readyAt: string[] = [];
  const timed = <T>(label: string, step: Promise<T>) => step.then((value) => (readyAt.push(`${label} ${seconds()}s`), value));

  let database: TestDatabase | undefined;
  let bridge: WsBridge | undefined;
  let realtime: RealtimeStub | undefined;
  let worker: Worker | undefined;
  let tornDown = false;

  const teardown = async () => {
    if (tornDown) return;
    tornDown = true;
    // Every step runs even when an earlier one fails; the first failure is reported at the end.
    const failures: unknown[] = [];
    for (const step of [() => worker?.dispose(), () => realtime?.close(), () => bridge?.close(), () => database?.dispose()]) {
      try {
        await step();
      } catch (error) {
        failures.push(error);
      }
    }
    process.off("exit", onExit);
    if (failures.length > 0) throw failures[0];
  };
  // Ctrl-C: vitest (and miniflare) call process.exit without running teardowns. A database on a
  // real server would outlive the run, so it is dropped synchronously on the way out; workerd is
  // stopped by miniflare's own exit hook; the bridge, the stub and PGlite die with this process.
  const onExit = () => database?.disposeSync();
  process.on("exit", onExit);

  try {
    database = await createTestDatabase(process.env.DATABASE_URL);
    const db = database;
    bridge = await startWsBridge({ target: db.target });
    const secret = randomBytes(24).toString("hex");
    realtime = await startRealtimeStub(secret);
    const bindings = { DATABASE_URL: db.url, DB_WS_PROXY: bridge.address, REALTIME_URL: realtime.url, REALTIME_SECRET: secret };
    // The Worker needs only URLs, so it starts while the database is made and migrated. Both are
    // awaited to the end, so a failure of one never leaves the other running.
    const [databaseReady, workerStarted] = await Promise.allSettled([
      timed("database", db.ready),
      timed("worker", startWorker(bindings)),
    ]);
    if (workerStarted.status === "fulfilled") worker = workerStarted.value;
    if (databaseReady.status === "rejected") throw databaseReady.reason;
    if (workerStarted.status === "rejected") throw workerStarted.reason;
    const workerUrl = (await worker!.url).origin;

    project.provide("workerUrl", workerUrl);
    project.provide("databaseUrl", db.url);
    project.provide("databaseKind", db.kind);
    project.provide("realtimeStubUrl", realtime.url);
    console.log(`[test harness] ready in ${seconds()}s (${readyAt.join(", ")}): worker ${workerUrl}, database ${db.label}`);
  } catch (error) {
    await teardown().catch(() => {});
    throw error;
  }
  return teardown;
}

async function startWorker(bindings: Record<string, string>): Promise<Worker> {
  // Imported here so the environment above is set before wrangler reads it.
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: `${ROOT}wrangler.toml`,
    bindings: Object.fromEntries(
      Object.entries(bindings).map(([name, value]) => [name, { type: "plain_text" as const, value }]),
    ),
    // persist: false keeps Durable Object state (rate limits) in memory: every run starts clean
    // and parallel runs do not share .wrangler/state.
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, persist: false, logLevel: "warn" },
  });
  try {
    await worker.url;
  } catch (error) {
    await worker.dispose().catch(() => {});
    throw error;
  }
  return worker;
}
