import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import WebSocket from "ws";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { waitForHttp } from "../../cli/dev/readiness.ts";
import { startRealtime } from "../../cli/dev/services.ts";
import { startSqlEndpoint } from "../../cli/lib/sql-endpoint.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { createTestDatabase } from "../../test/setup/test-database.ts";
import { createBenchOrg, growTasks, someTasks } from "./data.ts";

// The Worker under cli/dev/worker-host.ts with wrangler's DevTools inspector attached, and a
// session of that inspector's protocol: what bench/profile-workerd.ts and bench/cold-start.ts
// profile the Worker's isolate through. The inspector slows the Worker down: read proportions
// and ratios of the same run, not times.

export interface InspectedWorker {
  base: string;
  /** One method of the DevTools protocol, answered. */
  send<T>(method: string, params?: object): Promise<T>;
  stop(): Promise<void>;
}

/**
 * Starts the Worker of the checkout at `root` (its wrangler.toml, its code) with the settings in
 * the file `settings`, waits until `ready` (a path of it) answers, and opens the inspector.
 */
export async function startInspectedWorker(root: string, settings: string, ready = "/v1"): Promise<InspectedWorker> {
  const [port, inspector] = [await reserveFreePort(), await reserveFreePort()];
  const args = ["--import", "tsx", "cli/dev/worker-host.ts", "--config", "wrangler.toml", "--port", String(port)];
  const host: ChildProcess = spawn(process.execPath, [...args, "--settings", settings, "--no-watch", `--inspect=${inspector}`], {
    cwd: root,
    stdio: "ignore",
    detached: true,
  });
  const stop = async () => {
    try {
      if (host.pid) process.kill(-host.pid, "SIGTERM");
    } catch {
      // gone already
    }
    await sleep(500);
  };
  try {
    const base = `http://127.0.0.1:${port}`;
    const exited = new Promise((resolve) => host.once("exit", resolve));
    await waitForHttp(`${base}${ready}`, { timeoutMs: 60_000, abandon: exited });
    const [target] = (await (await fetch(`http://127.0.0.1:${inspector}/json`)).json()) as { webSocketDebuggerUrl: string }[];
    const socket = new WebSocket(target!.webSocketDebuggerUrl.replace("localhost", "127.0.0.1"));
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    let nextId = 0;
    const waiting = new Map<number, (result: unknown) => void>();
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: unknown };
      if (message.id !== undefined) waiting.get(message.id)?.(message.result);
    });
    const send = <T>(method: string, params: object = {}) =>
      new Promise<T>((resolve) => {
        const id = ++nextId;
        waiting.set(id, resolve as (result: unknown) => void);
        socket.send(JSON.stringify({ id, method, params }));
      });
    return {
      base,
      send,
      stop: async () => {
        socket.close();
        await stop();
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

interface Profile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** The CPU of a profile in ms: every sample but the idle ones (as cli/deploy-check.ts counts start-up). */
export function busyMs(profile: Profile): number {
  const idle = new Set(profile.nodes.filter((node) => node.callFrame.functionName === "(idle)").map((node) => node.id));
  return profile.samples.reduce((sum, id, i) => (idle.has(id) ? sum : sum + profile.timeDeltas[i]!), 0) / 1000;
}

/** The isolate's CPU while `work` runs, from a profile of it (sampled every 100 µs). */
export async function profiledMs(worker: InspectedWorker, work: () => Promise<unknown>): Promise<number> {
  await worker.send("Profiler.enable");
  await worker.send("Profiler.setSamplingInterval", { interval: 100 });
  await worker.send("Profiler.start");
  await work();
  const { profile } = await worker.send<{ profile: Profile }>("Profiler.stop");
  return busyMs(profile);
}

/**
 * What a profiled Worker runs against: a fresh database with an organisation of `tasks` tasks, the
 * local SQL endpoint, the room (`partykit dev`: a write's publish succeeds, as in the CPU section,
 * instead of failing and logging a warning per write), and the settings file naming them
 * (startInspectedWorker's `settings`). The room is not told where the API is: it starts from the
 * first event it is sent, and nothing in a profile asks it for more.
 */
export async function profilingStack(label: string, tasks: number) {
  const database = await createTestDatabase(process.env.DATABASE_URL);
  await database.ready;
  const endpoint = await startSqlEndpoint({ target: database.target });
  const db = connectNodeDatabase(database.url, { max: 2 });
  const dir = mkdtempSync(join(tmpdir(), `opsroom-${label}-`));
  const realtimeSecret = randomBytes(24).toString("hex");
  const realtimePort = await reserveFreePort();
  const realtime = startRealtime(
    { realtimeSecret },
    { port: realtimePort, apiUrl: "http://127.0.0.1:9", place: { dir, persistTo: join(dir, "realtime-state") } },
  );
  const close = async () => {
    await realtime.stop();
    await db.close();
    await endpoint.close();
    await database.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const realtimeUrl = `http://127.0.0.1:${realtimePort}`;
    await waitForHttp(`${realtimeUrl}/health`, { timeoutMs: 60_000, abandon: realtime.exited });
    const org = await createBenchOrg(db, label);
    await growTasks(db, org, tasks);
    const [taskId] = await someTasks(db, org, 1);
    const settings = join(dir, "settings.json");
    writeFileSync(
      settings,
      JSON.stringify({
        DATABASE_URL: database.url,
        LOCAL_SQL_ENDPOINT: endpoint.address,
        REALTIME_URL: realtimeUrl,
        REALTIME_SECRET: realtimeSecret,
      }),
      { mode: 0o600 },
    );
    return { key: org.key, taskId: taskId!, settings, close };
  } catch (error) {
    await close();
    throw error;
  }
}
