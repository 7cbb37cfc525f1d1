import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { reserveFreePort, reserveRestartablePort } from "../../cli/dev/ports.ts";
import { startMailCatcher, type MailCatcher } from "../../cli/lib/mail-catcher.ts";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { loadRoutes } from "../../functions/routes/index.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";
import { startPrism, summarisePrism, type PrismProxy } from "./prism.ts";
import { startRealtimeControl, type RealtimeControl } from "./realtime-control.ts";
import { startRealtimeServer, type RealtimeServer } from "./realtime-server.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";

const routes = await loadRoutes();

// Starts, once for the whole run, what every test file talks to: a migrated test database, the
// local SQL endpoint the Worker's neon driver dials, the realtime server (`partykit dev`, with a
// control endpoint to stop and start it), and the Worker in workerd. Test files run in Node and reach the Worker over real HTTP (inject("workerUrl")) and
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
    /** Origin of the realtime server (partykit dev) the Worker publishes to, e.g. http://127.0.0.1:40123 */
    realtimeUrl: string;
    /** The REALTIME_SECRET shared by the Worker and the room (tests publish to the room with it). */
    realtimeSecret: string;
    /** The control endpoint that stops and starts the realtime server (test/setup/realtime-control.ts). */
    realtimeControlUrl: string;
    /** The mail catcher (a real SMTP server, cli/lib/mail-catcher.ts) the Worker's MAIL_URL names: its HTTP side. */
    mailCatcherUrl: string;
    /** The FILES_SECRET attachments' download links are signed with (tests sign an expired one). */
    filesSecret: string;
    /** With OPSROOM_VIA_PRISM=1: the Prism validating proxy in front of the Worker (test/setup/prism.ts); else "". */
    prismUrl: string;
  }
}

// Offline machines: no request.cf download, no metrics.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

// eslint-disable-next-line max-lines-per-function -- the harness's start-up in the order it must happen, each part kept for the teardown it returns; it reads top to bottom
export default async function setup(project: TestProject) {
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const readyAt: string[] = [];
  const timed = <T>(label: string, step: Promise<T>) => step.then((value) => (readyAt.push(`${label} ${seconds()}s`), value));

  let database: TestDatabase | undefined;
  let sqlEndpoint: SqlEndpoint | undefined;
  let realtime: RealtimeServer | undefined;
  let control: RealtimeControl | undefined;
  let worker: TestWorker | undefined;
  let prism: PrismProxy | undefined;
  let mail: MailCatcher | undefined;
  let tornDown = false;

  const teardown = async () => {
    if (tornDown) return;
    tornDown = true;
    // Every step runs even when an earlier one fails; the first failure is reported at the end.
    const failures: unknown[] = [];
    const summarise = () => {
      if (!prism) return;
      const summary = summarisePrism(routes.map((route) => route.operationId));
      console.log(
        `[prism] ${summary.requests} calls through the proxy, ${summary.operationsCovered} of ${summary.operations} operations; violations: ${summary.responseViolations} in answers, ${summary.acceptedRequestViolations} in requests the API accepted (${summary.refusedRequestViolations} in requests it refused, as the tests meant)${summary.uncovered.length ? `; not called: ${summary.uncovered.join(", ")}` : ""}`,
      );
    };
    for (const step of [
      summarise,
      () => prism?.dispose(),
      () => worker?.dispose(),
      () => control?.close(),
      () => realtime?.dispose(),
      () => sqlEndpoint?.close(),
      () => mail?.close(),
      () => database?.dispose(),
    ]) {
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
  // stopped by miniflare's own exit hook; partykit's process group is killed here; the SQL endpoint,
  // the control endpoint and PGlite die with this process.
  const onExit = () => {
    realtime?.killNow();
    database?.disposeSync();
  };
  process.on("exit", onExit);

  try {
    database = await createTestDatabase(process.env.DATABASE_URL);
    const db = database;
    sqlEndpoint = await startSqlEndpoint({ target: db.target });
    mail = await startMailCatcher();
    const secret = randomBytes(24).toString("hex");
    // The Worker and the realtime server each need the other's URL, so both ports are chosen first.
    const workerPort = await reserveFreePort();
    // The room is stopped and started again by tests (test/realtime/room-down.test.ts): its port is
    // one no outgoing connection can take while it is down.
    const realtimePort = await reserveRestartablePort();
    const realtimeUrl = `http://127.0.0.1:${realtimePort}`;
    const bindings = {
      DATABASE_URL: db.url,
      LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
      REALTIME_URL: realtimeUrl,
      REALTIME_SECRET: secret,
      // The webhook tests' receivers listen on http://127.0.0.1.
      WEBHOOKS_ALLOW_LOOPBACK: "true",
      // People sign in (test/people/): the session cookies are signed with it.
      AUTH_SECRET: randomBytes(32).toString("hex"),
      // Mail goes to a real SMTP server the tests read (test/helpers/mail.ts).
      MAIL_URL: mail.smtpUrl,
      // Attachments' download links (test/attachments/).
      FILES_SECRET: randomBytes(32).toString("hex"),
    };
    // The Worker needs only URLs, so it starts while the database is made and migrated; both are
    // awaited to the end, so a failure of one never leaves the other running. The room starts
    // once the Worker answers: it calls the Worker's own address, past wrangler's dev proxy
    // (test/helpers/worker.ts).
    const [databaseReady, workerStarted] = await Promise.allSettled([
      timed("database", db.ready),
      // testScheduled: GET /__scheduled runs the cron handler (the outbox sweep) inside the Worker.
      // Miniflare's own /cdn-cgi/handler/scheduled fails once wrangler.toml has [assets]: its assets
      // proxy forwards the ScheduledController over RPC ("DataCloneError: Could not serialize").
      timed("worker", startTestWorker(bindings, { port: workerPort, testScheduled: true })),
    ]);
    if (workerStarted.status === "fulfilled") worker = workerStarted.value;
    if (databaseReady.status === "rejected") throw databaseReady.reason;
    if (workerStarted.status === "rejected") throw workerStarted.reason;
    realtime = await timed("realtime", startRealtimeServer({ port: realtimePort, secret, apiUrl: worker!.url }));
    control = await startRealtimeControl(realtime!);
    const workerUrl = worker!.url;

    project.provide("workerUrl", workerUrl);
    project.provide("databaseUrl", db.url);
    project.provide("databaseKind", db.kind);
    project.provide("realtimeUrl", realtimeUrl);
    project.provide("filesSecret", bindings.FILES_SECRET);
    project.provide("realtimeSecret", secret);
    project.provide("realtimeControlUrl", control.url);
    project.provide("mailCatcherUrl", mail.httpUrl);
    if (process.env.OPSROOM_VIA_PRISM === "1") prism = await startPrism(workerUrl);
    project.provide("prismUrl", prism?.url ?? "");
    console.log(
      `[test harness] ready in ${seconds()}s (${readyAt.join(", ")}): worker ${workerUrl}, realtime ${realtimeUrl}, database ${db.label}${prism ? `, prism ${prism.url}` : ""}`,
    );
  } catch (error) {
    await teardown().catch(() => {});
    throw error;
  }
  return teardown;
}
