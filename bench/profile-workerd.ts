// `npm run bench:profile -- [task|list|patch|nope] [--calls=3000]`: a CPU profile of the Worker
// in workerd while calls run, taken through wrangler's DevTools inspector (Profiler domain), saved
// as bench/results/workerd-<call>.cpuprofile (open it in Chrome DevTools' Performance panel, or
// any .cpuprofile viewer). The inspector slows everything down, so read proportions, not times:
// bench/sections/cpu.ts measures the times, without it. A database of its own, the SQL endpoint,
// and the Worker under cli/dev/worker-host.ts with --inspect; no room (publishes fail after the
// answer and are left to the sweep, which does not run here).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { reserveFreePort } from "../cli/dev/ports.ts";
import { waitForHttp } from "../cli/dev/readiness.ts";
import { startSqlEndpoint } from "../cli/lib/sql-endpoint.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { createTestDatabase } from "../test/setup/test-database.ts";
import { createBenchOrg, growTasks, someTasks } from "./lib/data.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const call = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "task";
const CALLS = Number(process.argv.find((a) => a.startsWith("--calls="))?.slice("--calls=".length) ?? 3000);
const IN_FLIGHT = 8;

const database = await createTestDatabase(process.env.DATABASE_URL);
await database.ready;
const endpoint = await startSqlEndpoint({ target: database.target });
const db = connectNodeDatabase(database.url, { max: 2 });
const dir = mkdtempSync(join(tmpdir(), "opsroom-profile-"));
let host: ReturnType<typeof spawn> | undefined;
try {
  const org = await createBenchOrg(db, "profile");
  await growTasks(db, org, 200);
  const [taskId] = await someTasks(db, org, 1);
  const settings = join(dir, "settings.json");
  writeFileSync(settings, JSON.stringify({ DATABASE_URL: database.url, LOCAL_SQL_ENDPOINT: endpoint.address }), { mode: 0o600 });
  const [port, inspector] = [await reserveFreePort(), await reserveFreePort()];
  host = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "cli/dev/worker-host.ts",
      "--config",
      "wrangler.toml",
      "--port",
      String(port),
      "--settings",
      settings,
      "--no-watch",
      `--inspect=${inspector}`,
    ],
    { cwd: ROOT, stdio: "ignore", detached: true },
  );
  const base = `http://127.0.0.1:${port}`;
  const exited = new Promise((resolve) => host!.once("exit", resolve));
  await waitForHttp(`${base}/v1`, { timeoutMs: 60_000, abandon: exited });

  const headers = { authorization: `Bearer ${org.key}` };
  const requests: Record<string, (i: number) => [string, RequestInit]> = {
    task: () => [`${base}/v1/tasks/${taskId}`, { headers }],
    list: () => [`${base}/v1/tasks?limit=50`, { headers }],
    nope: () => [`${base}/v1/nope`, { headers }],
    patch: (i) => [
      `${base}/v1/tasks/${taskId}`,
      { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ title: `Profiled ${i}` }) },
    ],
  };
  const request = requests[call];
  if (!request) throw new Error(`unknown call ${call}: one of ${Object.keys(requests).join(", ")}`);
  const load = async (n: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < n) {
          const [url, init] = request(sent++);
          await (await fetch(url, init)).text();
        }
      }),
    );
  };

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

  await load(500);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  await load(CALLS);
  const { profile } = await send<{ profile: unknown }>("Profiler.stop");
  const out = join(ROOT, "bench", "results", `workerd-${call}.cpuprofile`);
  writeFileSync(out, JSON.stringify(profile));
  console.log(`${CALLS} × ${call} at ${IN_FLIGHT} in flight: ${out}`);
  socket.close();
} finally {
  if (host?.pid) {
    try {
      process.kill(-host.pid, "SIGTERM");
    } catch {
      // gone already
    }
    await sleep(500);
  }
  await db.close();
  await endpoint.close();
  await database.dispose();
  rmSync(dir, { recursive: true, force: true });
}
