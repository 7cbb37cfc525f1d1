import { fileURLToPath } from "node:url";

// The Worker in workerd, as wrangler starts it for the harness and for stacks of a test's own
// (test/helpers/failure-stack.ts, a Worker with production settings): wrangler.toml, the given
// bindings as plain text, no persisted Durable Object state (every start is clean, and parallel
// Workers never share .wrangler/state).
//
// Mutation testing (docs/mutation.md): Stryker's command runner names the mutant to activate in
// this process's __STRYKER_ACTIVE_MUTANT__. The instrumented code reads it from process.env,
// which workerd fills from the string bindings (nodejs_compat, compatibility date after
// 2025-04-01), so it is passed on as one: the mutant is then active inside the Worker too.
const STRYKER_ACTIVE_MUTANT = "__STRYKER_ACTIVE_MUTANT__";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface TestWorker {
  url: string;
  dispose(): Promise<void>;
}

export async function startTestWorker(
  bindings: Record<string, string>,
  options: { port?: number; logLevel?: "warn" | "log"; testScheduled?: boolean } = {},
): Promise<TestWorker> {
  // Offline machines: no request.cf download, no metrics. Set before wrangler is imported.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  process.env.WRANGLER_SEND_METRICS = "false";
  // wrangler watches its config file even with `watch: false`; this is its switch (as for the dev
  // Worker started with --no-watch, cli/dev/services.ts). Nothing edits the config mid-run.
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING = "true";
  const { unstable_startWorker } = await import("wrangler");
  const mutant = process.env[STRYKER_ACTIVE_MUTANT];
  if (mutant) bindings = { ...bindings, [STRYKER_ACTIVE_MUTANT]: mutant };
  const worker = await unstable_startWorker({
    config: `${ROOT}wrangler.toml`,
    bindings: Object.fromEntries(Object.entries(bindings).map(([name, value]) => [name, { type: "plain_text" as const, value }])),
    dev: {
      server: { hostname: "127.0.0.1", port: options.port ?? 0 },
      inspector: false,
      watch: false,
      persist: false,
      logLevel: options.logLevel ?? "warn",
      testScheduled: options.testScheduled ?? false,
    },
  });
  reportReloads(worker.raw);
  try {
    return { url: (await worker.url).origin, dispose: () => worker.dispose() };
  } catch (error) {
    await worker.dispose().catch(() => {});
    throw error;
  }
}

/** What makes wrangler reload a running Worker, and the reload itself. */
const RELOAD_EVENTS = new Set(["configUpdate", "bundleStart", "bundleComplete", "reloadStart", "reloadComplete"]);

/**
 * Says on stderr when wrangler reloads the Worker after its start. A reload pauses wrangler's
 * proxy, and a POST in flight then gets "503 Your worker restarted mid-request" (ProxyWorker.ts):
 * a test's failure should say why. Even with `watch: false`, wrangler watches the `[assets]`
 * directory (console/), and a file added, changed or removed there reloads the Worker
 * (bundleComplete with no bundleStart); bundleStart is a rebuild of the sources.
 */
function reportReloads(devEnv: { dispatch(event: { type: string }): void }): void {
  const dispatch = devEnv.dispatch.bind(devEnv);
  let started = false;
  devEnv.dispatch = (event) => {
    if (started && RELOAD_EVENTS.has(event.type)) console.warn(`test Worker: wrangler ${event.type} at ${new Date().toISOString()} (a POST in flight during a reload is answered 503)`);
    if (event.type === "reloadComplete") started = true;
    dispatch(event);
  };
}
