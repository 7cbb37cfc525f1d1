// `npm run bench:app-workerd [-- --only=list,patch] [-- --calls=2000] [-- --rounds=5]`: the app
// alone inside workerd. bench/app-alone.ts measures the app's own CPU per call in Node; this runs
// the same calls (bench/lib/replay.ts) in the runtime that bills them: a Worker
// (bench/app-in-workerd/worker.ts) under wrangler's dev server as `npm run dev` runs the API,
// recording each call once for real through the local SQL endpoint, then replaying it `calls`
// times within one request. Its workerd's CPU time (bench/cpu/cpu-clock.ts) over that request, divided by the
// calls, is the app's CPU a call with no incoming request, subrequest or response around it:
// beside section 8's figures (the Worker's CPU a call, its I/O floor's), it says how much of what
// a call costs beyond its floor is the app's JavaScript.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { reserveFreePort } from "../cli/dev/ports.ts";
import { waitForHttp } from "../cli/dev/readiness.ts";
import { startWranglerDev } from "../cli/dev/services.ts";
import { startSqlEndpoint } from "../cli/lib/sql-endpoint.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { createTestDatabase } from "../test/setup/test-database.ts";
import { cpuTimes, exact } from "./cpu/cpu-clock.ts";
import { ownsPort } from "./cpu/processes.ts";
import { processTree, readAllProcesses } from "./cpu/procs.ts";
import { replayOrg } from "./lib/data.ts";
import { median } from "./lib/load.ts";
import { isChosen, replayCalls } from "./lib/replay.ts";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const CALLS = Number(arg("calls") ?? 2000);
const ROUNDS = Number(arg("rounds") ?? 5);
const only = arg("only")?.split(",");

const database = await createTestDatabase(process.env.DATABASE_URL);
const dir = mkdtempSync(join(tmpdir(), "opsroom-app-in-workerd-"));
let worker: ReturnType<typeof startWranglerDev> | undefined;
try {
  await database.ready;
  const sqlEndpoint = await startSqlEndpoint({ target: database.target });
  const db = connectNodeDatabase(database.url, { max: 2 });
  const org = await replayOrg(db, "app in workerd");
  await db.close();
  const port = await reserveFreePort();
  worker = startWranglerDev({
    name: "app-in-workerd",
    config: fileURLToPath(new URL("./app-in-workerd/wrangler.toml", import.meta.url)),
    port,
    settings: { DATABASE_URL: database.url, LOCAL_SQL_ENDPOINT: sqlEndpoint.address, REALTIME_SECRET: "bench-secret-bench-secret" },
    envFile: "app-in-workerd.env",
    place: { dir, persistTo: join(dir, "state"), watch: false },
  });
  const base = `http://127.0.0.1:${port}`;
  const query = new URLSearchParams({ key: org.key, task: org.taskId, project: org.projectId, person: org.personId });
  await waitForHttp(`${base}/replay?call=0`, { timeoutMs: 120_000, abandon: worker.exited });
  // The Worker's own workerd: wrangler's other one owns the port and passes requests on.
  const pid = processTree(worker.pid!, readAllProcesses()).find((p) => p.name === "workerd" && !ownsPort(p.pid, port))!.pid;
  const cpuMs = async () => (await cpuTimes([pid])).get(pid)!;
  const ask = async (path: string, call: number, n = 0) => {
    const response = await fetch(`${base}/${path}?call=${call}&n=${n}&${query}`);
    const body = (await response.json().catch(() => null)) as { status?: number; answers?: number } | null;
    if (!response.ok || !body) throw new Error(`app-in-workerd: ${path} of call ${call} answered ${response.status}`);
    return body;
  };

  const rows: string[] = [];
  for (const [index, call] of replayCalls(org).entries()) {
    if (!isChosen(call, only)) continue;
    const { status, answers } = await ask("record", index);
    await ask("replay", index, 300);
    const perCall: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = await cpuMs();
      await ask("replay", index, CALLS);
      perCall.push((((await cpuMs()) - before) * 1e3) / CALLS);
    }
    console.log(`${call.name}: ${perCall.map((v) => v.toFixed(0)).join(", ")} µs`);
    rows.push(`| ${call.name} | ${status} | ${answers} | ${median(perCall).toFixed(0)} | ${Math.min(...perCall).toFixed(0)} |`);
  }
  console.log(
    `\nThe app alone in workerd, ${CALLS} calls × ${ROUNDS} rounds each, CPU µs per call (the Worker's workerd, ${exact() ? "its CPU clock" : "/proc's ticks"}):\n`,
  );
  console.log("| call | status | answers replayed | median µs | min µs |\n|---|--:|--:|--:|--:|");
  for (const row of rows) console.log(row);
  await sqlEndpoint.close();
} finally {
  await worker?.stop().catch(() => {});
  await database.dispose();
  rmSync(dir, { recursive: true, force: true });
}
