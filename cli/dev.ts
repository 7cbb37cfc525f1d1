import { createHash } from "node:crypto";
import type { Database } from "../db/client.ts";
import { migrateAndReport, type MigrationReport } from "../db/migrate.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { roomsAt } from "../services/room-client.ts";
import { formatBanner, type ReadyPart } from "./dev/banner.ts";
import type { ServiceProcess } from "./dev/child-process.ts";
import { startDevCron } from "./dev/cron.ts";
import { uploadDemoFiles } from "./dev/demo-files.ts";
import { ensureDemoKey, type DemoOutcome } from "./dev/demo-key.ts";
import { prepareDevDatabase, type DevDatabase } from "./dev/dev-database.ts";
import { loadDevSecret } from "./dev/dev-secret.ts";
import { assertPortFree } from "./dev/ports.ts";
import { probe, probeWithKey, waitForHttp } from "./dev/readiness.ts";
import { REALTIME_PORT, REALTIME_URL, startRealtime, startWorker, WORKER_PORT, WORKER_URL } from "./dev/services.ts";
import { Supervisor } from "./dev/supervisor.ts";
import { startWebhookSink, WEBHOOK_SINK_PORT, WEBHOOK_SINK_URL } from "./dev/webhook-sink.ts";
import { findLeftoverServices, removeDevState, writeDevState } from "./lib/dev-state.ts";
import { CommandError, isSystemError } from "./lib/errors.ts";
import { MAIL_CATCHER_HTTP_PORT, MAIL_CATCHER_SMTP_PORT, startMailCatcher } from "./lib/mail-catcher.ts";
import { startSqlEndpoint } from "./lib/sql-endpoint.ts";
import { red } from "./lib/style.ts";

// `npm run dev`: database, migrations, local SQL endpoint, Worker and realtime server, then a banner
// with a working demo key. Ctrl-C (or any part dying) stops all of it.

const START_TIMEOUT_MS = 60_000;
const DEMO_HOW = { seeded: "seeded just now", stored: "key from .data/demo.json", reissued: "new key (the stored one was revoked)" };

/** Milliseconds since this process started: the banner's timings. */
const elapsed = () => performance.now();

type MarkReady = (part: string, detail: string, warning?: boolean) => void;

/**
 * Mail: the MAIL_URL the person set, else the mail catcher on its fixed ports (a real SMTP server
 * and a page listing what it caught, cli/lib/mail-catcher.ts). Answers the Worker's MAIL_URL.
 */
async function startMail(supervisor: Supervisor, ready: MarkReady, print: (line: string) => void): Promise<string | undefined> {
  if (process.env.MAIL_URL) {
    ready("mail", `MAIL_URL from the environment (${new URL(process.env.MAIL_URL).host})`);
    return process.env.MAIL_URL;
  }
  try {
    const catcher = await startMailCatcher({ smtpPort: MAIL_CATCHER_SMTP_PORT, httpPort: MAIL_CATCHER_HTTP_PORT, print });
    supervisor.onShutdown(() => catcher.close());
    ready("mail", `${catcher.httpUrl} (the mail catcher; the Worker sends to ${catcher.smtpUrl})`);
    return catcher.smtpUrl;
  } catch (error) {
    ready(
      "mail",
      `ports ${MAIL_CATCHER_SMTP_PORT}/${MAIL_CATCHER_HTTP_PORT} are in use (${String(error)}): mail waits in the outbox`,
      true,
    );
    return undefined;
  }
}

async function start(supervisor: Supervisor): Promise<void> {
  assertNoLeftovers();
  await assertPortFree(WORKER_PORT, "the Worker");
  await assertPortFree(REALTIME_PORT, "the realtime server");
  const realtimeSecret = loadDevSecret();
  const parts: ReadyPart[] = [];
  const ready: MarkReady = (part, detail, warning = false) => parts.push({ part, detail, atMs: elapsed(), warning });

  const database = await prepareDevDatabase();
  supervisor.onShutdown(() => database.stop());
  const sqlEndpoint = await startSqlEndpoint({ target: database.target });
  supervisor.onShutdown(() => sqlEndpoint.close());
  ready("sql endpoint", `http://${sqlEndpoint.address}/sql → ${database.target.host}:${database.target.port}`);
  // Deliveries of the seed's events are printed after the banner, with the services' logs.
  const held: string[] = [];
  let holding = true;
  const printDelivery = (line: string) => (holding ? held.push(line) : process.stdout.write(`webhooks │ ${line}\n`));
  const stopSink = await startWebhookSink(printDelivery);
  if (stopSink) supervisor.onShutdown(stopSink);
  ready(
    "webhooks",
    stopSink
      ? `${WEBHOOK_SINK_URL} (the demo's receiver)`
      : `port ${WEBHOOK_SINK_PORT} is in use: the demo's webhooks fail and are retried`,
    !stopSink,
  );

  const mailUrl = await startMail(supervisor, ready, (line) => process.stdout.write(`mail     │ ${line}\n`));

  // wrangler and partykit take seconds to boot, and so does the database: all at once.
  // The session cookies' key: derived from the kept dev secret, so sign-ins survive a restart.
  const authSecret = createHash("sha256").update(`${realtimeSecret}:auth`).digest("hex");
  // `npm run dev -- --inspect[=port]`: wrangler's DevTools inspector on 127.0.0.1:9229 or the port
  // given (off by default: cli/dev/worker-host.ts).
  const inspectArg = process.argv.find((a) => a === "--inspect" || a.startsWith("--inspect="));
  const place = inspectArg ? { inspect: Number(inspectArg.split("=")[1] ?? 9229) } : {};
  const worker = startWorker(
    { databaseUrl: database.url, sqlEndpoint: sqlEndpoint.address, realtimeSecret, authSecret, mailUrl },
    { place },
  );
  const realtime = startRealtime({ realtimeSecret });
  supervisor.watch(worker);
  supervisor.watch(realtime);
  supervisor.onShutdown(removeDevState);
  const [demo] = await Promise.all([
    prepareData(database, { sqlEndpoint: sqlEndpoint.address, realtimeSecret, services: { worker, realtime } }, ready),
    waitForService(worker, `${WORKER_URL}/v1`).then(async (status) => {
      ready("worker", `${WORKER_URL} (GET /v1 without a key → ${status})`, status !== 401);
      // The console and the reference are served by the same Worker (static assets, GET /docs).
      const [consolePage, docs] = await Promise.all([probe(`${WORKER_URL}/`), probe(`${WORKER_URL}/docs`)]);
      ready("console", `${WORKER_URL}/ → ${consolePage}, /docs → ${docs}`, consolePage !== 200 || docs !== 200);
    }),
    waitForService(realtime, `${REALTIME_URL}/health`).then(() => ready("realtime", `${REALTIME_URL} (party v1)`)),
  ]);

  if (demo.demo && demo.how === "seeded") {
    const files = await uploadDemoFiles(database.url, WORKER_URL, demo.demo.key).then(
      (count) => ({ detail: `${count} files on the demo's records`, warning: false }),
      (error: Error) => ({ detail: error.message, warning: true }),
    );
    ready("files", files.detail, files.warning);
  }
  if (demo.demo) {
    // The whole path of a client's call: Worker → SQL endpoint → Postgres.
    const probe = await probeWithKey(`${WORKER_URL}/v1`, demo.demo.key);
    const ok = "status" in probe && probe.status === 200;
    ready("end to end", `GET /v1 with the demo key ${"status" in probe ? `→ ${probe.status}` : `failed: ${probe.error}`}`, !ok);
  }
  supervisor.onShutdown(startDevCron(WORKER_URL));
  parts.sort((a, b) => a.atMs - b.atMs);
  process.stdout.write(formatBanner(parts, demo, elapsed()) + "\n");
  supervisor.streamServiceOutput();
  holding = false;
  held.splice(0).forEach(printDelivery);
}

/** Starts the database, migrates it, tells other local tools where it is, and finds the demo key. */
async function prepareData(
  database: DevDatabase,
  session: { sqlEndpoint: string; realtimeSecret: string; services: Record<string, ServiceProcess> },
  ready: MarkReady,
): Promise<DemoOutcome> {
  await database.start();
  ready("database", database.description);
  const db = connectNodeDatabase(database.url);
  try {
    const { applied, total } = await migrate(db, database);
    ready("migrations", `${applied === 0 ? "up to date" : `applied ${applied}`} (${total} in db/migrations)`);
    writeDevState({
      pid: process.pid,
      startedAt: new Date().toISOString(),
      embeddedPostgres: database.embedded,
      sqlEndpoint: session.sqlEndpoint,
      workerUrl: WORKER_URL,
      realtimeUrl: REALTIME_URL,
      services: Object.fromEntries(
        Object.entries(session.services).flatMap(([name, service]) => (service.pid ? [[name, service.pid]] : [])),
      ),
    });
    // The seed's events go to the room as soon as it is up (the dev cron's sweep, if it is not yet).
    const rooms = roomsAt({ url: REALTIME_URL, secret: session.realtimeSecret });
    const outcome = await ensureDemoKey(db, rooms, database.label, WEBHOOK_SINK_URL);
    if (outcome.demo) ready("demo", `${outcome.demo.orgName} (${outcome.demo.orgId}), ${DEMO_HOW[outcome.how]}`);
    else ready("demo", "no demo key", true);
    return outcome;
  } finally {
    await db.close();
  }
}

async function migrate(db: Database, database: DevDatabase): Promise<MigrationReport> {
  try {
    return await migrateAndReport(db, database.url);
  } catch (error) {
    throw isSystemError(error) ? new CommandError(`cannot reach ${database.description}: ${error.message}`) : error;
  }
}

function assertNoLeftovers(): void {
  const leftovers = findLeftoverServices();
  if (!leftovers) return;
  const names = Object.keys(leftovers.services).join(" and ");
  const groups = Object.values(leftovers.services)
    .map((pid) => `-${pid}`)
    .join(" ");
  throw new CommandError(`a killed dev session (pid ${leftovers.devPid}) left the ${names} running; stop them with: kill -- ${groups}`);
}

/** Waits for the service to answer over HTTP; if it exits or hangs instead, fails with its output. */
async function waitForService(service: ServiceProcess, url: string): Promise<number> {
  try {
    return await waitForHttp(url, { timeoutMs: START_TIMEOUT_MS, abandon: service.exited });
  } catch (error) {
    throw new CommandError(`${service.name} did not start: ${(error as Error).message}\n${service.keptOutput()}`);
  }
}

const supervisor = new Supervisor();
supervisor.handleSignals();
try {
  await start(supervisor);
} catch (error) {
  // A stop signal during start-up makes the waits fail; that is not an error to report.
  if (!supervisor.stopping) {
    const message = error instanceof CommandError ? error.message : ((error as Error).stack ?? String(error));
    process.stderr.write(red(`opsroom dev: ${message}\n`, process.stderr));
  }
  await supervisor.shutdown(1);
}
