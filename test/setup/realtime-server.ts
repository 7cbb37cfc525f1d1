import { mkdirSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startService, type ServiceProcess } from "../../cli/dev/child-process.ts";
import { waitForHttp } from "../../cli/dev/readiness.ts";
import { localBin, PROJECT_ROOT } from "../../cli/lib/paths.ts";

// The real realtime server for a test run: `partykit dev` (partykit.json, realtime/) on a port of
// its own, its state in a temporary directory of its own (so runs never share rooms, and a room
// keeps its storage across a stop and start within the run, as a deployed room does), in its own
// process group (partykit starts workerd and esbuild; stopping kills the whole group).

const START_TIMEOUT_MS = 30_000;
/**
 * The room's cap on one webhook's queued deliveries in the test run (10 000 when deployed): small
 * enough for a test to fill it in seconds, and above the largest burst another test queues (1 500).
 */
export const TEST_WEBHOOK_BACKLOG_LIMIT = 2_000;
/**
 * The tests' room settings beside the secret and the API's address: the small backlog cap, and
 * Workers' per-invocation connection queue, which partykit dev's workerd lacks (realtime/connections.ts).
 */
const TEST_ROOM_VARS = [`WEBHOOK_BACKLOG_LIMIT=${TEST_WEBHOOK_BACKLOG_LIMIT}`, "MODEL_WORKERS_LIMITS=true"];
/** The last lines partykit printed (the room's errors among them), kept for a failed run. Gitignored. */
const MAIN_LOG_FILE = join(PROJECT_ROOT, "test", "artifacts", "partykit.log");

export interface RealtimeServer {
  /** http://127.0.0.1:<port>; the same across restarts. */
  url: string;
  running(): boolean;
  /** Stops the server and everything it started; the port is free when this resolves. */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same state; resolves when it answers. */
  start(): Promise<void>;
  /** Stops it for good and removes its state. */
  dispose(): Promise<void>;
  /** Synchronous last resort on process exit. */
  killNow(): void;
}

interface RealtimeServerOptions {
  port: number;
  secret: string;
  apiUrl: string;
  vars?: string[];
  logFile?: string;
}

/**
 * `vars`: room settings beside the tests' (a test file that needs a room of its own with other
 * settings starts one, test/webhooks/drain-subrequests.test.ts); `logFile`: where its last lines go.
 */
export async function startRealtimeServer(options: RealtimeServerOptions): Promise<RealtimeServer> {
  const url = `http://127.0.0.1:${options.port}`;
  const logFile = options.logFile ?? MAIN_LOG_FILE;
  const stateDir = await mkdtemp(join(tmpdir(), "opsroom-test-realtime-"));
  mkdirSync(join(PROJECT_ROOT, "test", "artifacts"), { recursive: true });
  writeFileSync(logFile, `partykit dev on ${url}, state in ${stateDir}\n`);
  let service: ServiceProcess | undefined;
  // Start and stop calls are queued, so a stop never races a start.
  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => {});
    return run;
  };

  const launch = async () => {
    const started = startService({
      name: "realtime",
      command: localBin("partykit"),
      args: [
        "dev",
        ...mutantArgs(),
        "--port",
        String(options.port),
        "--no-hotkeys",
        "--disable-request-cf-fetch",
        "--persist",
        stateDir,
        "--var",
        `REALTIME_SECRET=${options.secret}`,
        "--var",
        `API_URL=${options.apiUrl}`,
        ...[...TEST_ROOM_VARS, ...(options.vars ?? [])].flatMap((setting) => ["--var", setting]),
      ],
    });
    service = started;
    try {
      await waitForHttp(`${url}/health`, { timeoutMs: START_TIMEOUT_MS, abandon: started.exited });
    } catch (error) {
      service = undefined;
      await started.stop();
      throw new Error(`partykit dev did not start: ${(error as Error).message}\n${started.keptOutput()}`, { cause: error });
    }
  };

  const halt = async () => {
    const current = service;
    service = undefined;
    if (!current) return;
    await current.stop();
    appendFileSync(logFile, `--- stopped at ${new Date().toISOString()}; its last lines:\n${current.keptOutput()}\n`);
    await portClosed(options.port);
  };

  try {
    await launch();
  } catch (error) {
    await rm(stateDir, { recursive: true, force: true });
    throw error;
  }
  let disposed = false;
  return {
    url,
    running: () => service !== undefined,
    stop: () => serially(halt),
    start: () => serially(async () => (service ? undefined : launch())),
    dispose: () =>
      serially(async () => {
        if (disposed) return;
        disposed = true;
        await halt();
        await rm(stateDir, { recursive: true, force: true });
      }),
    killNow: () => {
      service?.killNow();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * Mutation testing (docs/mutation.md): when Stryker names a mutant to activate
 * (__STRYKER_ACTIVE_MUTANT__), the room runs behind test/mutation/realtime-entry.ts, with the
 * mutant's id substituted into its prelude, so the mutant is active inside partykit's workerd.
 */
function mutantArgs(): string[] {
  const mutant = process.env.__STRYKER_ACTIVE_MUTANT__;
  if (!mutant) return [];
  return ["test/mutation/realtime-entry.ts", "--define", `__STRYKER_MUTANT_ID__=${JSON.stringify(mutant)}`];
}

/** Waits until nothing accepts connections on the port (workerd has let it go). */
async function portClosed(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" });
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (!open) return;
    await sleep(50);
  }
  throw new Error(`port ${port} is still taken after the realtime server stopped`);
}
