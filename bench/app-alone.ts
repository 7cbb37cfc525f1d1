// `npm run bench:app [-- --only=list,patch] [-- --calls=2000] [-- --rounds=5] [-- --json]`: the Hono app's own CPU per call,
// without the runtime. The app's `fetch` is called in this Node process, one call at a time,
// against recorded answers (bench/lib/replay.ts): each call type runs once for real against a
// fresh database (through the local SQL endpoint, as in the Worker), every answer it received is
// kept, and the measured calls get those answers back without leaving the process. A regression
// here shows without the runtime's noise. `--profile=<dir>` writes a V8 CPU profile of each call
// type's measured rounds alone (no start-up, no recording) to <dir>/<call>.cpuprofile.
// `npm run bench:app-workerd` replays the same calls inside workerd (bench/app-in-workerd.ts).

import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { createApp } from "../functions/app.ts";
import type { Bindings } from "../functions/env.ts";
import { replayOrg, withBenchDatabase } from "./lib/data.ts";
import { median } from "./lib/load.ts";
import { isChosen, recordingFetch, replayCalls, replayEnv, runCall, type App, type ReplayCall } from "./lib/replay.ts";

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const CALLS = Number(arg("calls") ?? 2000);
const ROUNDS = Number(arg("rounds") ?? 5);
const only = arg("only")?.split(",");
const profileDir = arg("profile");

const realFetch = globalThis.fetch;
const print = console.log;
const tape = recordingFetch(realFetch);
globalThis.fetch = tape.fetch;

interface Row {
  call: string;
  status: number;
  statements: number;
  median: number;
  min: number;
  target?: number;
}

/** One call: recorded once for real, then replayed CALLS times a round, its CPU time per call. */
async function measure(app: App, env: Bindings, call: ReplayCall): Promise<Row> {
  // Record: the call once for real (twice: the first warms the code paths and the key's row).
  let status = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    tape.record();
    status = await run(app, env, call.request(attempt));
  }
  const statements = tape.replay().filter((a) => !a.body.includes('"acknowledged"')).length;
  // The log line is built (JSON.stringify) as in the Worker; where it goes is the runtime's business.
  console.log = () => {};
  for (let i = 0; i < 300; i++) await run(app, env, call.request(i));
  const perCall: number[] = [];
  const profiler = profileDir ? await startProfiler() : undefined;
  for (let round = 0; round < ROUNDS; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) await run(app, env, call.request(i));
    const used = process.cpuUsage(before);
    perCall.push((used.user + used.system) / CALLS);
  }
  if (profiler) await profiler.stop(join(profileDir!, `${call.name.replace(/[^a-z0-9]+/gi, "-").replace(/^-|-$/g, "")}.cpuprofile`));
  console.log = print;
  console.log(`${call.name}: ${perCall.map((v) => v.toFixed(0)).join(", ")} µs`);
  return {
    call: call.name,
    status,
    statements,
    median: median(perCall),
    min: Math.min(...perCall),
    ...(call.targetUs ? { target: call.targetUs } : {}),
  };
}

async function main() {
  await withBenchDatabase(async ({ url, sqlEndpoint, db }) => {
    const org = await replayOrg(db, "app alone");
    const env = replayEnv({
      DATABASE_URL: url,
      LOCAL_SQL_ENDPOINT: sqlEndpoint,
      REALTIME_SECRET: "bench-secret-bench-secret",
    });
    const app = createApp();
    const chosen = replayCalls(org).filter((call) => isChosen(call, only));
    const rows: Row[] = [];
    for (const call of chosen) {
      rows.push(await measure(app, env, call));
    }
    // For the bench's CPU section (bench/sections/cpu.ts), which runs this in a process of its own.
    if (process.argv.includes("--json"))
      print(`APP_ALONE ${JSON.stringify({ node: process.version, calls: CALLS, rounds: ROUNDS, rows })}`);
    console.log(`\nThe app alone, Node ${process.version}, ${CALLS} calls × ${ROUNDS} rounds each, CPU µs per call (process.cpuUsage):\n`);
    console.log("| call | status | answers replayed | median µs | min µs | target |\n|---|--:|--:|--:|--:|--:|");
    for (const r of rows)
      console.log(
        `| ${r.call} | ${r.status} | ${r.statements} | ${r.median.toFixed(0)} | ${r.min.toFixed(0)} | ${r.target ? `≤ ${r.target}` : ""} |`,
      );
  }).finally(() => (globalThis.fetch = realFetch));
}

/** A V8 CPU profile of this process from now until `stop(file)`, sampled every 100 µs. */
async function startProfiler() {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return {
    async stop(file: string) {
      const { profile } = await session.post("Profiler.stop");
      session.disconnect();
      mkdirSync(profileDir!, { recursive: true });
      writeFileSync(file, JSON.stringify(profile));
    },
  };
}

/** One call, its tape from the start. */
function run(app: App, env: Bindings, request: Request): Promise<number> {
  tape.rewind();
  return runCall(app, env, request);
}

await main();
