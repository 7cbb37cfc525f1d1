// The process `npm run dev` runs a Worker in: wrangler's own dev server (`unstable_startWorker`,
// the engine behind `wrangler dev`: workerd, its proxy, the bundler, live reload), started with the
// settings file cli/dev/services.ts wrote, and WITHOUT wrangler's DevTools inspector unless asked
// (`npm run dev -- --inspect`). Attached, the inspector streams every subrequest and console line
// of the Worker to this process, which logs each message to a debug file: measured, that was
// ~1 ms of this process's CPU and ~0.5 ms of workerd's per database statement, more than the
// Worker's own work (bench/results/README.md "CPU per call"). The tests and the bench run the Worker the
// same way.
//
//   node --import tsx cli/dev/worker-host.ts --config <wrangler.toml> --port <n> --settings <file.json>
//        [--persist-to <dir>] [--inspect=<port>] [--no-watch]

import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    config: { type: "string" },
    port: { type: "string" },
    settings: { type: "string" },
    "persist-to": { type: "string" },
    inspect: { type: "string" },
    "no-watch": { type: "boolean" },
  },
  strict: true,
});
if (!values.config || !values.port || !values.settings) {
  console.error("worker-host: --config, --port and --settings are required");
  process.exit(2);
}
const inspectPort = values.inspect === undefined ? undefined : Number(values.inspect);

const settings = JSON.parse(readFileSync(values.settings, "utf8")) as Record<string, string>;
process.env.WRANGLER_SEND_METRICS = "false";
process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
const { unstable_startWorker } = await import("wrangler");
const worker = await unstable_startWorker({
  config: values.config,
  bindings: Object.fromEntries(Object.entries(settings).map(([name, value]) => [name, { type: "plain_text" as const, value }])),
  dev: {
    server: { hostname: "127.0.0.1", port: Number(values.port) },
    inspector: inspectPort === undefined ? false : { hostname: "127.0.0.1", port: inspectPort },
    watch: !values["no-watch"],
    // Lets the dev command fire the cron trigger (the sweep) through /__scheduled.
    testScheduled: true,
    ...(values["persist-to"] ? { persist: values["persist-to"] } : {}),
  },
});
const url = await worker.url;
console.log(`Ready on ${url.origin}${inspectPort === undefined ? "" : ` (DevTools inspector on 127.0.0.1:${inspectPort})`}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", () => void stop());
process.on("SIGINT", () => void stop());
