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
//
// `npm run dev` uses the defaults (the fixed ports, .data/); the bench's CPU section
// (bench/sections/cpu.ts) starts the same command lines on ports, in a directory and with state of
// its own, so it can run beside a dev session.

/** Where a service's settings files and state go: .data/ and the tools' default state for `npm run dev`. */
export interface ServicePlace {
  /** Directory of the settings files (default .data/). */
  dir?: string;
  /** State directory (wrangler's persist directory, partykit --persist); default: the tool's own. */
  persistTo?: string;
  /**
   * The port to attach wrangler's DevTools inspector on (`npm run dev -- --inspect`). Unset: none;
   * attached, it relays every subrequest and console line of the Worker to the dev process
   * (cli/dev/worker-host.ts).
   */
  inspect?: number;
  /**
   * Rebuild and reload the Worker when its sources or its wrangler.toml change (default). The bench
   * turns it off, so a file saved mid-run neither restarts workerd nor mixes two versions of the
   * code in one reading.
   */
  watch?: boolean;
}

/** Writes a file only this user can read, in `dir` (default .data/). */
function privateFile(name: string, content: string, dir = DATA_DIR): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
}

/**
 * A Worker under wrangler's dev server, in a process of its own (cli/dev/worker-host.ts), with its
 * settings in a private file: what `npm run dev` runs.
 */
export function startWranglerDev(options: {
  name: string;
  /** wrangler.toml of the Worker; default the project's (functions/). */
  config?: string;
  port: number;
  settings: Record<string, string>;
  /** Name of the settings file in the place's directory. */
  envFile: string;
  place?: ServicePlace;
}): ServiceProcess {
  const settingsFile = privateFile(options.envFile, JSON.stringify(options.settings) + "\n", options.place?.dir);
  return startService({
    name: options.name,
    command: process.execPath,
    args: [
      "--import",
      "tsx",
      fileURLToPath(new URL("./worker-host.ts", import.meta.url)),
      "--config",
      options.config ?? join(PROJECT_ROOT, "wrangler.toml"),
      "--port",
      String(options.port),
      "--settings",
      settingsFile,
      ...(options.place?.persistTo ? ["--persist-to", options.place.persistTo] : []),
      ...(options.place?.inspect ? [`--inspect=${options.place.inspect}`] : []),
      ...(options.place?.watch === false ? ["--no-watch"] : []),
    ],
    // Offline-friendly: no usage metrics, no lookup of request.cf from Cloudflare. wrangler watches
    // its config file even without --no-watch's file watching; this variable is its switch.
    env: {
      WRANGLER_SEND_METRICS: "false",
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      ...(options.place?.watch === false ? { WRANGLER_CI_DISABLE_CONFIG_WATCHING: "true" } : {}),
    },
  });
}

/** The Worker (functions/) under `wrangler dev`, on WORKER_PORT and telling the room at REALTIME_URL unless told otherwise. */
export function startWorker(
  vars: { databaseUrl: string; sqlEndpoint: string; realtimeSecret: string; authSecret: string; mailUrl?: string | undefined },
  where: { port?: number; realtimeUrl?: string; place?: ServicePlace; config?: string } = {},
): ServiceProcess {
  const port = where.port ?? WORKER_PORT;
  const settings = {
    // The Worker's own address: the OAuth issuer, its endpoints and the resources tokens are for.
    PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    DATABASE_URL: vars.databaseUrl,
    LOCAL_SQL_ENDPOINT: vars.sqlEndpoint,
    REALTIME_URL: where.realtimeUrl ?? REALTIME_URL,
    REALTIME_SECRET: vars.realtimeSecret,
    // Local receivers (http://127.0.0.1) are allowed in development; production requires https.
    WEBHOOKS_ALLOW_LOOPBACK: "true",
    // Signs the session cookies of people signed in to the console.
    AUTH_SECRET: vars.authSecret,
    // The mail catcher's SMTP server (cli/lib/mail-catcher.ts), or the MAIL_URL the person set.
    ...(vars.mailUrl ? { MAIL_URL: vars.mailUrl } : {}),
  };
  return startWranglerDev({
    name: "worker",
    port,
    settings,
    envFile: "worker.dev.json",
    place: where.place,
    ...(where.config ? { config: where.config } : {}),
  });
}

/**
 * The realtime server under `partykit dev`, from a copy of partykit.json in .data/ (or `place.dir`)
 * that adds the room's settings (its paths made relative to that directory), and kept on loopback
 * (loopback-only.mjs).
 */
export function startRealtime(
  vars: { realtimeSecret: string },
  where: { port?: number; apiUrl?: string; place?: ServicePlace } = {},
): ServiceProcess {
  const dir = where.place?.dir ?? DATA_DIR;
  const config = JSON.parse(readFileSync(join(PROJECT_ROOT, "partykit.json"), "utf8")) as {
    main: string;
    parties: Record<string, string>;
    vars?: Record<string, string>;
  };
  const fromDir = (path: string) => relative(dir, join(PROJECT_ROOT, path));
  const devConfig = {
    ...config,
    main: fromDir(config.main),
    parties: Object.fromEntries(Object.entries(config.parties).map(([name, path]) => [name, fromDir(path)])),
    // MODEL_WORKERS_LIMITS: Workers' connection queue, which partykit dev lacks (realtime/connections.ts).
    vars: { ...config.vars, API_URL: where.apiUrl ?? WORKER_URL, REALTIME_SECRET: vars.realtimeSecret, MODEL_WORKERS_LIMITS: "true" },
  };
  const configFile = privateFile("partykit.dev.json", JSON.stringify(devConfig, null, 2) + "\n", dir);
  return startService({
    name: "realtime",
    command: localBin("partykit"),
    args: [
      "dev",
      "--config",
      configFile,
      "--port",
      String(where.port ?? REALTIME_PORT),
      "--no-hotkeys",
      // Without it partykit asks workers.cloudflare.com for request.cf on start and warns when offline.
      "--disable-request-cf-fetch",
      ...(where.place?.persistTo ? ["--persist", where.place.persistTo] : []),
    ],
    env: { NODE_OPTIONS: `--import=${fileURLToPath(new URL("./loopback-only.mjs", import.meta.url))}` },
  });
}
