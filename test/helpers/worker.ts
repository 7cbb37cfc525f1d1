import { createServer, connect, type Server, type Socket } from "node:net";
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
  /**
   * Where the tests reach the Worker: its public origin (PUBLIC_ORIGIN), an address of this
   * process's that passes every connection to the Worker's own workerd, past wrangler's dev proxy
   * (watchRuntime, below), byte for byte; or, with `origin`, that workerd itself.
   */
  url: string;
  /** wrangler's dev proxy, on the port asked for: what `npm run dev` users reach. */
  proxyUrl: string;
  dispose(): Promise<void>;
}

export async function startTestWorker(
  bindings: Record<string, string>,
  options: {
    port?: number;
    logLevel?: "warn" | "log";
    testScheduled?: boolean;
    /**
     * The origin the Worker sees in request.url (https://api.example.com, as on Cloudflare), and its
     * PUBLIC_ORIGIN; default its own http address (the one `url` answers).
     */
    origin?: string;
  } = {},
): Promise<TestWorker> {
  // The Worker's public origin is an address known before it starts: the forwarder's (below).
  const forwarder = options.origin ? null : await startForwarder();
  // wrangler.toml's [vars] are a deployment's; a test Worker has the room only when it names one
  // (an empty value is unset), and its own origin.
  bindings = { PUBLIC_ORIGIN: options.origin ?? forwarder!.url, REALTIME_URL: "", ...bindings };
  // Offline machines: no request.cf download, no metrics. Set before wrangler is imported.
  process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
  process.env.WRANGLER_SEND_METRICS = "false";
  // wrangler watches its config file even with `watch: false`; this is its switch (as for the dev
  // Worker started with --no-watch, cli/dev/services.ts). Nothing edits the config mid-run.
  process.env.WRANGLER_CI_DISABLE_CONFIG_WATCHING = "true";
  const { unstable_DevEnv } = await import("wrangler");
  // Every statement a test's Worker sends is compiled both ways and compared (db/statements/engine/compile.ts).
  bindings = { CHECK_STATEMENTS: "true", ...bindings };
  const mutant = process.env[STRYKER_ACTIVE_MUTANT];
  if (mutant) bindings = { ...bindings, [STRYKER_ACTIVE_MUTANT]: mutant };
  const devEnv = new unstable_DevEnv();
  // After a reload (below), the forwarder passes new connections to the Worker's new address.
  const runtime = watchRuntime(devEnv, (url) => forwarder?.forwardTo(new URL(url)));
  const worker = await devEnv.startWorker({
    config: `${ROOT}wrangler.toml`,
    bindings: Object.fromEntries(Object.entries(bindings).map(([name, value]) => [name, { type: "plain_text" as const, value }])),
    dev: {
      server: { hostname: "127.0.0.1", port: options.port ?? 0 },
      inspector: false,
      watch: false,
      persist: false,
      logLevel: options.logLevel ?? "warn",
      testScheduled: options.testScheduled ?? false,
      ...(options.origin ? { origin: { hostname: new URL(options.origin).host, secure: options.origin.startsWith("https:") } } : {}),
    },
  });
  try {
    const proxyUrl = (await worker.url).origin;
    const directUrl = await runtime.directUrl;
    forwarder?.forwardTo(new URL(directUrl));
    return {
      url: forwarder?.url ?? directUrl,
      proxyUrl,
      dispose: async () => {
        await worker.dispose();
        await forwarder?.close();
      },
    };
  } catch (error) {
    await worker.dispose().catch(() => {});
    await forwarder?.close();
    throw error;
  }
}

/**
 * A TCP listener on 127.0.0.1 that pipes each connection to the Worker's workerd once its address
 * is known: the Worker's public origin has to be a binding when it starts, and workerd's own port
 * is chosen only then. Bytes pass as they are (Host included), so the Worker sees the request as
 * the client sent it, and a connection closed on either side closes the other.
 */
async function startForwarder(): Promise<{ url: string; forwardTo(target: URL): void; close(): Promise<void> }> {
  let target: URL | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (!target) return client.destroy();
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    forwardTo: (url) => void (target = url),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** What makes wrangler reload a running Worker, and the reload itself. */
const RELOAD_EVENTS = new Set(["configUpdate", "bundleStart", "bundleComplete", "reloadStart", "reloadComplete"]);

/**
 * The address of the Worker's own workerd, past wrangler's dev proxy, and a line on stderr when
 * wrangler reloads the Worker after its start.
 *
 * The tests talk to the Worker directly. wrangler's ProxyWorker (templates/startDevWorker/
 * ProxyWorker.ts) forwards every request to the Worker's workerd, and when that forward fails with
 * a network error it compares the request's whole URL with the Worker's origin to tell "the
 * Worker restarted" from a real error. The two differ for every path but "/", so any dropped
 * connection between its workerd and the Worker's (a keep-alive connection reused as the other
 * side closes it, under the load of a burst) becomes "503 Your worker restarted mid-request" for
 * a POST, with no restart at all: the flake of the earlier runs, in bursts of 200 concurrent
 * writes. On Cloudflare there is no such proxy.
 *
 * A reload pauses the proxy; the direct address changes with it (`reloaded` is told the new one).
 * Even with `watch: false`, wrangler watches the `[assets]` directory (console/): a file added,
 * changed or removed there reloads the Worker (bundleComplete with no bundleStart); bundleStart is a
 * rebuild of the sources.
 */
function watchRuntime(
  devEnv: { dispatch(event: { type: string; proxyData?: { userWorkerUrl?: Partial<URL> } }): void },
  reloaded: (url: string) => void,
): {
  directUrl: Promise<string>;
} {
  const dispatch = devEnv.dispatch.bind(devEnv);
  let started = false;
  let found: (url: string) => void = () => {};
  const directUrl = new Promise<string>((resolve, reject) => {
    found = resolve;
    setTimeout(() => reject(new Error("wrangler did not report the Worker's address within 120 s")), 120_000).unref();
  });
  // Awaited only once the Worker started; a start that failed first must not leave it unhandled.
  directUrl.catch(() => {});
  devEnv.dispatch = (event) => {
    if (started && RELOAD_EVENTS.has(event.type))
      console.warn(
        `test Worker: wrangler ${event.type} at ${new Date().toISOString()} (the Worker's address may change; the forwarder follows it)`,
      );
    if (event.type === "reloadComplete") {
      const url = new URL("http://127.0.0.1");
      Object.assign(url, event.proxyData?.userWorkerUrl ?? {});
      if (started) reloaded(url.origin);
      else found(url.origin);
      started = true;
    }
    dispatch(event);
  };
  return { directUrl };
}
