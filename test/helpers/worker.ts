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
  try {
    return { url: (await worker.url).origin, dispose: () => worker.dispose() };
  } catch (error) {
    await worker.dispose().catch(() => {});
    throw error;
  }
}
