import { localBin } from "../lib/paths.ts";
import { startService, type ServiceProcess } from "./child-process.ts";

export const WORKER_PORT = 8787;
export const REALTIME_PORT = 1999;
export const WORKER_URL = `http://127.0.0.1:${WORKER_PORT}`;
export const REALTIME_URL = `http://127.0.0.1:${REALTIME_PORT}`;

// The local binaries directly rather than through npx: that is what npx would resolve to, minus an
// npm process in between that costs start-up time and would have to relay stop signals.

/** The Worker (functions/) under `wrangler dev`; REALTIME_URL comes from wrangler.toml. */
export function startWorker(vars: { databaseUrl: string; bridgeAddress: string; realtimeSecret: string }): ServiceProcess {
  return startService({
    name: "worker",
    command: localBin("wrangler"),
    args: [
      "dev",
      "--port", String(WORKER_PORT),
      "--ip", "127.0.0.1",
      "--var", `DATABASE_URL:${vars.databaseUrl}`,
      "--var", `DB_WS_PROXY:${vars.bridgeAddress}`,
      "--var", `REALTIME_SECRET:${vars.realtimeSecret}`,
      // Local receivers (http://127.0.0.1) are allowed in development; production requires https.
      "--var", "WEBHOOKS_ALLOW_LOOPBACK:true",
      "--show-interactive-dev-session=false",
      // Lets the dev command fire the cron trigger (the outbox sweep) through /__scheduled.
      "--test-scheduled",
    ],
    // Offline-friendly: no usage metrics, no lookup of request.cf from Cloudflare.
    env: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  });
}

/** The realtime server (partykit.json) under `partykit dev`. */
export function startRealtime(vars: { realtimeSecret: string }): ServiceProcess {
  return startService({
    name: "realtime",
    command: localBin("partykit"),
    args: [
      "dev",
      "--port", String(REALTIME_PORT),
      "--no-hotkeys",
      // Without it partykit asks workers.cloudflare.com for request.cf on start and warns when offline.
      "--disable-request-cf-fetch",
      "--var", `REALTIME_SECRET=${vars.realtimeSecret}`,
    ],
  });
}
