import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { measureAppAlone } from "../cpu/app-alone-rows.ts";
import {
  API_CALLS,
  APPLICATION_NAME,
  CALLS,
  idleMs,
  isFloor,
  mapGroups,
  shape,
  type CpuOptions,
  type CpuSection,
  type Group,
  type Measure,
  type Target,
} from "../cpu/calls.ts";
import { backendPids, describeProcesses, snapshot, startProcesses, type Owned } from "../cpu/processes.ts";
import { callResults, callRows, commitOf, methodOf } from "../cpu/report.ts";
import { callLoads, readIdle, runRounds, warmUp } from "../cpu/rounds.ts";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import { waitForQuiet } from "../lib/quiet.ts";
import type { BenchRun, Plan } from "./context.ts";

// Section 8: CPU per call, against the runtime's floor (issue 19). The processes are started the
// way `npm run dev` starts them (cli/dev/services.ts), each a separate OS process: the Worker under
// wrangler's dev server (not watching files, so an edit mid-run cannot reload it), a hello-world
// Worker (bench/cpu/hello-worker.ts) under the same wrangler the same way, the room under
// `partykit dev`, and the local SQL endpoint in a Node process of its own
// (bench/cpu/sql-endpoint-process.ts; with PGlite, the database runs in it too, as in `npm run
// dev`). Each call type is sent N times at 8 in flight (autocannon, keep-alive), and the CPU
// (utime + stime from /proc/<pid>/stat) each process spent over the batch, less what it spends
// with no calls, is divided by N. The call types, the floor among them, take turns in rounds (the
// order rotating), so the machine's load touches all alike; each figure is the median over the
// rounds.
//
// wrangler's dev server runs two workerd processes: the Worker's own (its isolate and Durable
// Objects: what production runs) and a proxy that owns the port and passes each request on to
// it; and wrangler itself runs in a Node process. Each is its own column; "x the floor" divides
// the same column of the Worker by that of the hello-world Worker.
//
// The parts, in bench/cpu/: calls.ts (what is measured), processes.ts (starting them, reading
// their CPU), rounds.ts (the batches), report.ts (medians, ratios, rows), app-alone-rows.ts.

/** Progress steps: starting the processes, loading and warming up, one per batch, the idle reading after, the app alone (twice with `--against`). */
export const steps = (plan: Plan, against?: string) =>
  (against ? 5 : 4) + shape(plan).rounds * (CALLS.length + (against ? API_CALLS.length : 0));

export async function cpuPerCall({ stack, plan, progress, rows }: BenchRun, options: CpuOptions = {}): Promise<CpuSection> {
  const { rounds, calls, warmup } = shape(plan);
  const embedded = stack.kind === "embedded";
  const dir = mkdtempSync(join(tmpdir(), "opsroom-bench-cpu-"));
  const owned: Owned = { services: [] };
  const killAll = () => {
    for (const service of owned.services) service.killNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", killAll);
  try {
    progress.step("cpu: start the SQL endpoint, the Worker, a hello-world Worker and the room, each its own process");
    const against = options.against ? resolve(options.against) : undefined;
    const { services, db, urls } = await startProcesses(stack, dir, against, owned);
    const found = describeProcesses(services);
    progress.done(
      `${Object.entries(found)
        .map(([name, list]) => `${name} ${list.map((p) => `${p.name}:${p.pid}`).join(",")}`)
        .join("; ")}` + `; Postgres: ${embedded ? "PGlite in the SQL endpoint's process" : `backends of ${APPLICATION_NAME}`}`,
    );

    progress.step(`cpu: load an organisation of 1,000 tasks, warm up (${warmup} calls each), ${idleMs(plan) / 1000} s idle`);
    const org = await createBenchOrg(db, `bench cpu ${Date.now()}`);
    await growTasks(db, org, 1_000);
    const loadOf = callLoads(urls, org, await someTasks(db, org, 64));
    const measures: Measure[] = [
      ...CALLS.map((call) => ({ id: call.key as string, call, target: (isFloor(call.key) ? "floor" : "worker") as Target })),
      ...(against ? API_CALLS.map((call) => ({ id: `${call.key}@against`, call, target: "against" as Target })) : []),
    ];
    await warmUp(measures, loadOf, warmup);
    // What the warm-up and the loading left running (Postgres's autovacuum and checkpointer, V8's
    // optimising) finishes before the idle reading and the rounds (bench/lib/quiet.ts).
    const quiet = await waitForQuiet();
    const read = async (target: Target) => snapshot(services, target, embedded ? "endpoint" : await backendPids(stack.db));
    const targets: Target[] = ["worker", "floor", ...(against ? ["against" as const] : [])];
    const idleReadings: Partial<Record<Target, Record<Group, number>>>[] = [];
    const quietLine = `${quiet.quiet ? "quiet" : "not quiet"} after ${(quiet.waitedMs / 1000).toFixed(0)} s (${(quiet.busy * 100).toFixed(0)} % busy)`;
    progress.done(`${quietLine}; ${await readIdle(plan, targets, read, idleReadings)}`);

    const measured = await runRounds({ rounds, calls, embedded, progress }, measures, loadOf, read);

    progress.step(`cpu: idle CPU again, ${idleMs(plan) / 1000} s`);
    progress.done(await readIdle(plan, targets, read, idleReadings));
    // The lower of the two readings: something that happens once (a reload) must not count as idle.
    const idle = Object.fromEntries(targets.map((t) => [t, mapGroups((g) => Math.min(...idleReadings.map((r) => r[t]![g])))])) as Partial<
      Record<Target, Record<Group, number>>
    >;
    const results = callResults(measures, measured, idle, { rounds, calls });
    rows.push(...callRows(results, embedded, { rounds, calls }));
    const alone = await measureAppAlone(plan, progress, rows);
    const againstInfo: CpuSection["against"] = against
      ? { dir: against, commit: commitOf(against), appAlone: await measureAppAlone(plan, progress, rows, against) }
      : undefined;
    return {
      ...(againstInfo ? { against: againstInfo } : {}),
      appAlone: alone,
      ...methodOf(embedded, { rounds, calls }),
      processes: found,
      quietBeforeRounds: quiet,
      idleMsPerSecond: idle.worker!,
      floorIdleMsPerSecond: idle.floor!,
      calls: results,
    };
  } finally {
    process.off("exit", killAll);
    await owned.ownDb?.close().catch(() => {});
    await Promise.all(owned.services.map((service) => service.stop().catch(() => {})));
    rmSync(dir, { recursive: true, force: true });
  }
}
