import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { DATA_DIR, PROJECT_ROOT, localBin } from "../lib/paths.ts";
import { startService, type ServiceProcess } from "./child-process.ts";

export const WORKER_PORT = 8787;
export const REALTIME_PORT = 1999;
export const WORKER_URL = `http://127.0.0.1:${WORKER_PORT}`;
export const REALTIME_URL = `http://127.0.0.1:${REALTIME_PORT}`;

// The local binaries directly rather than through npx: that is what npx would resolve to, minus an
// npm process in between that costs start-up time and would have to relay stop signals.
//
// Settings that hold secrets (the realtime secret, the database's URL) go to each service in a
// file of .data/ readable by this user only, never on a command line, which every local user can
// read with ps.

/** Writes a file of .data/ only this user can read. */
function privateFile(name: string, content: string): string {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = join(DATA_DIR, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/** The Worker (functions/) under `wrangler dev`, with its settings in an env file. */
export function startWorker(vars: { databaseUrl: string; sqlEndpoint: string; realtimeSecret: string; authSecret: string }): ServiceProcess {
  const settings = {
    DATABASE_URL: vars.databaseUrl,
    LOCAL_SQL_ENDPOINT: vars.sqlEndpoint,
    REALTIME_URL,
    REALTIME_SECRET: vars.realtimeSecret,
    // Local receivers (http://127.0.0.1) are allowed in development; production requires https.
    WEBHOOKS_ALLOW_LOOPBACK: "true",
    // Signs the session cookies of people signed in to the console.
    AUTH_SECRET: vars.authSecret,
  };
  const envFile = privateFile("worker.dev.env", Object.entries(settings).map(([name, value]) => `${name}=${JSON.stringify(value)}\n`).join(""));
  return startService({
    name: "worker",
    command: localBin("wrangler"),
    args: [
      "dev",
      "--port", String(WORKER_PORT),
      "--ip", "127.0.0.1",
      "--env-file", envFile,
      "--show-interactive-dev-session=false",
      // Lets the dev command fire the cron trigger (the sweep) through /__scheduled.
      "--test-scheduled",
    ],
    // Offline-friendly: no usage metrics, no lookup of request.cf from Cloudflare.
    env: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
}

/**
 * The realtime server under `partykit dev`, from a copy of partykit.json in .data/ that adds the
 * room's settings (its paths made relative to .data/), and kept on loopback (loopback-only.mjs).
 */
export function startRealtime(vars: { realtimeSecret: string }): ServiceProcess {
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, "partykit.json"), "utf8")) as { main: string; parties: Record<string, string>; vars?: Record<string, string> };
  const fromData = (path: string) => relative(DATA_DIR, join(PROJECT_ROOT, path));
  const devConfig = {
    ...config,
    main: fromData(config.main),
    parties: Object.fromEntries(Object.entries(config.parties).map(([name, path]) => [name, fromData(path)])),
    vars: { ...config.vars, API_URL: WORKER_URL, REALTIME_SECRET: vars.realtimeSecret },
  };
  const configFile = privateFile("partykit.dev.json", JSON.stringify(devConfig, null, 2) + "\n");
  return startService({
    name: "realtime",
    command: localBin("partykit"),
    args: [
      "dev",
      "--config", configFile,
      "--port", String(REALTIME_PORT),
      "--no-hotkeys",
      // Without it partykit asks workers.cloudflare.com for request.cf on start and warns when offline.
      "--disable-request-cf-fetch",
    ],
    env: { NODE_OPTIONS: `--import=${fileURLToPath(new URL("./loopback-only.mjs", import.meta.url))}` },
  });
}
