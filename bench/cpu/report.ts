import { execFileSync } from "node:child_process";
import type { Row } from "../lib/table.ts";
import { ms } from "../lib/table.ts";
import {
  APPLICATION_NAME,
  CONCURRENCY,
  IO_FLOOR,
  SELECT_ONE_FLOOR,
  isFloor,
  mapGroups,
  SETTLE_MS,
  type ApiKey,
  type CpuCall,
  type CpuSection,
  type FloorKey,
  type Group,
  type Measure,
  type Target,
} from "./calls.ts";
import { exact } from "./cpu-clock.ts";
import { CLOCK_TICKS } from "./procs.ts";
import type { Measured } from "./rounds.ts";

// Section 8's figures (bench/sections/cpu.ts): each call's medians over the rounds, the idle CPU
// taken off, its ratios to the floor and to its I/O floor, its rows in the bench's table, and what
// the section's JSON says of its method.

/** The median; of an even count (rounds left out), the mean of the two middle values. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const times = (a: number, b: number) => (b > 0 ? a / b : NaN);

/** Each measure's medians, the idle CPU of its Worker's processes taken off; the API calls' ratios to their floors. */
export function callResults(
  measures: Measure[],
  measured: Map<string, Measured>,
  idle: Partial<Record<Target, Record<Group, number>>>,
  { rounds, calls }: { rounds: number; calls: number },
): CpuCall[] {
  const results: CpuCall[] = measures.map(({ id, call, target }) => {
    const m = measured.get(id)!;
    const idleOf = idle[target]!;
    const perRound = mapGroups((g) => m.raw[g].map((spent, i) => Math.max(0, spent - idleOf[g] * m.seconds[i]!) / calls));
    // The medians leave out rounds with failed calls or a process that ended mid-batch (unless all had).
    const counted = m.valid.some(Boolean) ? (values: number[]) => values.filter((_, i) => m.valid[i]) : (values: number[]) => values;
    return {
      key: call.key,
      ...(target === "against" ? { against: true as const } : {}),
      call: target === "against" ? `${call.name} [against]` : call.name,
      calls: calls * rounds,
      perRound,
      perRoundRaw: mapGroups((g) => m.raw[g].map((spent) => spent / calls)),
      median: mapGroups((g) => median(counted(perRound[g]))),
      roundsCounted: m.valid.some(Boolean) ? m.valid.filter(Boolean).length : rounds,
      ...(call.target ? { target: call.target } : {}),
      rps: median(counted(m.rps)),
      p50: median(counted(m.p50)),
      p99: median(counted(m.p99)),
      failures: m.failures,
      lostProcesses: m.lost,
    };
  });
  const floorCall = results[0]!;
  for (const r of results.filter((r) => !isFloor(r.key))) {
    const io = results.find((f) => f.key === IO_FLOOR[r.key as ApiKey])!;
    const selectOne = results.find((f) => f.key === SELECT_ONE_FLOOR[r.key as ApiKey]);
    r.overIo = {
      floor: io.key as FloorKey,
      times: times(r.median.workerd, io.median.workerd),
      ownMs: r.median.workerd - io.median.workerd,
      ...(selectOne ? { overSelectOne: times(r.median.workerd, selectOne.median.workerd) } : {}),
    };
    r.xFloor = {
      workerd: times(r.median.workerd, floorCall.median.workerd),
      wrangler: times(r.median.wrangler, floorCall.median.wrangler),
      proxy: times(r.median.proxy, floorCall.median.proxy),
      bothWorkerd: times(r.median.workerd + r.median.proxy, floorCall.median.workerd + floorCall.median.proxy),
    };
  }
  return results;
}

const x = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)}×`);

const failed = (r: CpuCall) =>
  `${r.failures ? `; ${r.failures} calls FAILED` : ""}${r.lostProcesses ? `; ${r.lostProcesses} processes ended mid-batch` : ""}` +
  `${r.roundsCounted < r.perRound.workerd.length ? `; medians of the ${r.roundsCounted} rounds without either` : ""}`;

/** A row for each floor, then for each API call, in the order measured. */
export function callRows(results: CpuCall[], embedded: boolean, { rounds, calls }: { rounds: number; calls: number }): Row[] {
  const floorCall = results[0]!;
  const cpuNote = (r: CpuCall) =>
    [
      `room workerd ${ms(r.median.roomWorkerd)}, partykit Node ${ms(r.median.partykit)}`,
      embedded
        ? `SQL endpoint with PGlite ${ms(r.median.endpoint)}`
        : `SQL endpoint ${ms(r.median.endpoint)}, Postgres ${ms(r.median.postgres)}`,
    ].join("; ");
  const load = `c=${CONCURRENCY}, ${rounds} × ${calls}`;
  const floorRow = (f: CpuCall): Row => ({
    section: "8 CPU",
    name: f.call,
    load,
    rps: f.rps,
    p50: f.p50,
    p99: f.p99,
    note:
      `CPU ms a call: workerd ${ms(f.median.workerd)}${f === floorCall ? "" : ` = ${x(times(f.median.workerd, floorCall.median.workerd))} the floor`}, ` +
      `wrangler's Node ${ms(f.median.wrangler)}, wrangler's proxy workerd ${ms(f.median.proxy)}${f === floorCall ? "" : `; ${cpuNote(f)}`}${failed(f)}`,
  });
  const apiRow = (r: CpuCall): Row => ({
    section: "8 CPU",
    name: r.call,
    load,
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    note:
      `workerd ${ms(r.median.workerd)} ms a call = ${x(r.xFloor!.workerd)} the floor` +
      (r.overIo!.floor === "floor"
        ? ` (target ≤ ${r.target}×); `
        : ` = ${x(r.overIo!.times)} its I/O floor (target ≤ ${r.target}×; ${ms(r.overIo!.ownMs)} ms beyond it)` +
          (r.overIo!.overSelectOne === undefined ? "; " : `, ${x(r.overIo!.overSelectOne)} the floor with select 1 for its statement; `)) +
      `proxy workerd ${ms(r.median.proxy)} = ${x(r.xFloor!.proxy)} (both workerd ${x(r.xFloor!.bothWorkerd)}); ` +
      `wrangler's Node ${ms(r.median.wrangler)} = ${x(r.xFloor!.wrangler)}; ${cpuNote(r)}${failed(r)}`,
  });
  return [...results.filter((r) => isFloor(r.key)).map(floorRow), ...results.filter((r) => !isFloor(r.key)).map(apiRow)];
}

/** How each process's CPU time was read (bench/cpu/cpu-clock.ts). */
const clockOf = () =>
  exact()
    ? "the CPU clock of each process (clock_gettime of its CPUCLOCK_SCHED: every thread's time, in ns)"
    : `utime+stime from /proc/<pid>/stat (${CLOCK_TICKS} ticks a second; the exact clock's python3 reader was missing or stopped)`;

/** What the section's JSON says of how it measured, and what each column sums. */
export function methodOf(
  embedded: boolean,
  { rounds, calls }: { rounds: number; calls: number },
): Pick<CpuSection, "method" | "clock" | "rounds" | "callsPerBatch" | "concurrency" | "postgres" | "groups"> {
  return {
    method:
      `${clockOf()} of each process group, read before and ${SETTLE_MS} ms after each batch ` +
      `of ${calls} calls at ${CONCURRENCY} in flight (autocannon, keep-alive), less the group's idle CPU a second (the lower of two readings, ` +
      `before and after the rounds) times the batch's duration, ` +
      `divided by the calls; ${rounds} rounds, the order rotating; medians over the rounds. ` +
      `Processes started as npm run dev starts them (cli/dev/services.ts), each its own OS process.`,
    clock: clockOf(),
    rounds,
    callsPerBatch: calls,
    concurrency: CONCURRENCY,
    postgres: embedded
      ? "PGlite, in the SQL endpoint's process: the SQL endpoint column includes it, and the Postgres column is that same process"
      : `the client backends serving the SQL endpoint's connections (pg_stat_activity.application_name = '${APPLICATION_NAME}'), not the cluster's background processes`,
    groups: {
      workerd:
        "the workerd process of wrangler's dev server that runs the Worker (not the one owning the port); for the floor, the hello-world Worker's",
      proxy: "the workerd process of wrangler's dev server that owns the Worker's port and passes requests on (wrangler's ProxyWorker)",
      wrangler: "every other process of the tree wrangler runs in: its Node process(es), esbuild",
      roomWorkerd: "the workerd processes of partykit dev",
      partykit: "every other process of partykit dev's tree (Node, esbuild)",
      endpoint: "the SQL endpoint's Node process (bench/cpu/sql-endpoint-process.ts)",
      postgres: embedded ? "the SQL endpoint's process (PGlite runs in it)" : `client backends with application_name ${APPLICATION_NAME}`,
    },
  };
}

/** The checkout's commit, and "+ changes" when its tree differs from it. */
export function commitOf(dir: string): string {
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
  try {
    return `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") ? " + changes" : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}
