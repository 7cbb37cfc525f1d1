import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { startService, type ServiceProcess } from "../../cli/dev/child-process.ts";
import { reserveFreePort } from "../../cli/dev/ports.ts";
import { waitForHttp } from "../../cli/dev/readiness.ts";
import { startRealtime, startWorker, startWranglerDev } from "../../cli/dev/services.ts";
import type { Database } from "../../db/client.ts";
import { connectNodeDatabase } from "../../db/node-client.ts";
import { CLOCK_TICKS, commandLine, processTree, readAllProcesses, readProcess, spentMs, type Ticks } from "../cpu/procs.ts";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import { httpLoad, type HttpLoad } from "../lib/load.ts";
import { int, ms } from "../lib/table.ts";
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

export const CONCURRENCY = 8;
/** Time for what follows the answers (the publish to the room, its fan-out) to finish inside the reading. */
const SETTLE_MS = 300;
const START_TIMEOUT_MS = 120_000;
/** How long the processes' CPU with no calls is read, before the rounds and again after, to take it off each batch's reading. */
const idleMs = (plan: Plan) => (plan.quick ? 2_000 : 5_000);
/** application_name of the SQL endpoint's Postgres connections (node-postgres reads PGAPPNAME), to find their backends. */
const APPLICATION_NAME = "opsroom-bench-cpu";

/** An odd number of rounds, so the median is one round's figure; 2000 calls of each type in a full run. */
const shape = (plan: Plan) => (plan.quick ? { rounds: 3, calls: 200, warmup: 50 } : { rounds: 5, calls: 400, warmup: 100 });

/** The call types, the floor first; targets from issue 19 (the Worker's workerd CPU a call over the floor's). */
const CALLS = [
  { key: "floor", name: "hello-world Worker, GET / (the floor)", target: undefined },
  { key: "ioRead", name: "hello-world Worker, GET /io/read (the I/O floor of a read: one SQL request)", target: undefined },
  { key: "ioWrite", name: "hello-world Worker, GET /io/write (the I/O floor of a write: two requests)", target: undefined },
  { key: "unknown", name: "GET /v1/nope (unknown path → 404, full middleware)", target: 1.5 },
  { key: "describe", name: "GET /v1", target: 2 },
  { key: "task", name: "GET /v1/tasks/:id", target: 2 },
  { key: "list", name: "GET /v1/tasks?limit=50", target: 2 },
  { key: "create", name: "POST /v1/tasks", target: 3 },
  { key: "change", name: "PATCH /v1/tasks/:id (a new title)", target: 3 },
] as const;
type CallKey = (typeof CALLS)[number]["key"];
type FloorKey = "floor" | "ioRead" | "ioWrite";
const isFloor = (key: CallKey): key is FloorKey => key === "floor" || key === "ioRead" || key === "ioWrite";
/** The I/O floor of each call: the hello-world Worker making the subrequests the call makes, and no more. */
const IO_FLOOR: Record<Exclude<CallKey, FloorKey>, FloorKey> = { unknown: "floor", describe: "ioRead", task: "ioRead", list: "ioRead", create: "ioWrite", change: "ioWrite" };

/** The columns: each a group of processes whose CPU is summed. */
const GROUPS = ["workerd", "proxy", "wrangler", "roomWorkerd", "partykit", "endpoint", "postgres"] as const;
type Group = (typeof GROUPS)[number];
const GROUP_NAMES: Record<Group, string> = {
  workerd: "workerd (the Worker)",
  proxy: "workerd (wrangler's proxy)",
  wrangler: "wrangler's Node",
  roomWorkerd: "workerd (the room)",
  partykit: "partykit's Node",
  endpoint: "SQL endpoint (Node)",
  postgres: "Postgres",
};

/** The API calls (not the floors), which `--against` measures on the other Worker too. */
const API_CALLS = CALLS.filter((c) => !isFloor(c.key));

/** Progress steps: starting the processes, loading and warming up, one per batch, the idle reading after, the app alone (twice with `--against`). */
export const steps = (plan: Plan, against?: string) => (against ? 5 : 4) + shape(plan).rounds * (CALLS.length + (against ? API_CALLS.length : 0));

/**
 * `--against=<dir>`: another checkout of opsroom (its own node_modules, or a link to these), whose
 * Worker runs beside this one, on the same SQL endpoint, database and room, and whose API calls
 * take their turns in the same rounds. Before and after are then measured in one run, under the
 * same load, instead of in two runs whose machine differs by more than most changes do.
 */
export interface CpuOptions {
  against?: string | undefined;
}

/** Which Worker a batch measures. */
type Target = "worker" | "floor" | "against";

export interface CpuCall {
  key: CallKey;
  /** Set on the calls measured on the `--against` Worker. */
  against?: true;
  call: string;
  calls: number;
  /** ms of CPU per call, each process group, each round (in the order run), the idle CPU taken off. */
  perRound: Record<Group, number[]>;
  /** The same before the idle CPU is taken off. */
  perRoundRaw: Record<Group, number[]>;
  /** The median over the rounds counted. */
  median: Record<Group, number>;
  /** Rounds whose batch had no failed call and no process ending mid-batch: the medians are theirs. */
  roundsCounted: number;
  /**
   * The Worker's workerd over the floor's (medians); the same for wrangler's Node, for the proxy
   * workerd, and for both workerd processes together (the Worker's and the proxy's).
   */
  xFloor?: { workerd: number; wrangler: number; proxy: number; bothWorkerd: number };
  /**
   * The Worker's workerd over its I/O floor's (the hello-world Worker making the same subrequests),
   * and the ms a call the app spends beyond that: its own code, and the RateLimiter's call.
   */
  overIo?: { floor: FloorKey; times: number; ownMs: number };
  target?: number;
  rps: number;
  p50: number;
  p99: number;
  failures: number;
  /** Processes that ended during a batch (their CPU in it is lost; a restart): should be 0. */
  lostProcesses: number;
}

export interface CpuSection {
  method: string;
  clockTicks: number;
  rounds: number;
  callsPerBatch: number;
  concurrency: number;
  /** The "Postgres" column: which processes it sums. */
  postgres: string;
  /** What each column sums, and the processes found at the start. */
  groups: Record<Group, string>;
  processes: Record<string, { pid: number; name: string; command: string }[]>;
  /**
   * ms of CPU a second of each group with no calls (partykit's Node, for one, polls), read before
   * the rounds and after them (the lower of the two); that rate times a batch's duration is taken
   * off the batch's reading. The Worker's processes, and (floorIdleMsPerSecond) the hello-world Worker's wrangler.
   */
  idleMsPerSecond: Record<Group, number>;
  floorIdleMsPerSecond: Record<Group, number>;
  calls: CpuCall[];
  /** The Hono app's fetch alone in Node against recorded answers (bench/app-alone.ts): µs of CPU a call. */
  appAlone: AppAlone | null;
  /** With `--against`: the other checkout, its commit, and its app alone. */
  against?: { dir: string; commit: string; appAlone: AppAlone };
}

export interface AppAlone {
  node: string;
  calls: number;
  rounds: number;
  rows: { call: string; status: number; statements: number; median: number; min: number; target?: number }[];
}

/**
 * The app alone (bench/app-alone.ts), in a Node process of its own: it replaces the global fetch
 * to replay recorded answers, which must not touch this process's own calls.
 */
async function appAlone(plan: Plan, root = PROJECT_ROOT): Promise<AppAlone> {
  const { spawn } = await import("node:child_process");
  const args = ["--import", "tsx", join(root, "bench/app-alone.ts"), "--json", ...(plan.quick ? ["--calls=500", "--rounds=3"] : [])];
  // A database of its own on DATABASE_URL's server (or PGlite without it), as the bench's.
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"], cwd: root });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  const line = output.split("\n").find((l) => l.startsWith("APP_ALONE "));
  if (code !== 0 || !line) throw new Error(`bench/app-alone.ts ended with ${code}: ${output.slice(-500)}`);
  return JSON.parse(line.slice("APP_ALONE ".length)) as AppAlone;
}

interface Services {
  worker: ServiceProcess;
  floor: ServiceProcess;
  realtime: ServiceProcess;
  endpoint: ServiceProcess;
  workerPort: number;
  floorPort: number;
  against?: { worker: ServiceProcess; port: number } | undefined;
}

const PROJECT_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** One call type measured on one Worker: `id` is the call's key, with "@against" on the other Worker. */
interface Measure {
  id: string;
  call: (typeof CALLS)[number];
  target: Target;
}

export async function cpuPerCall({ stack, plan, progress, rows }: BenchRun, options: CpuOptions = {}): Promise<CpuSection> {
  const { rounds, calls, warmup } = shape(plan);
  const embedded = stack.kind === "embedded";
  const dir = mkdtempSync(join(tmpdir(), "opsroom-bench-cpu-"));
  const services: ServiceProcess[] = [];
  const killAll = () => {
    for (const service of services) service.killNow();
    rmSync(dir, { recursive: true, force: true });
  };
  process.on("exit", killAll);
  let ownDb: (Database & { close(): Promise<void> }) | undefined;
  try {
    progress.step("cpu: start the SQL endpoint, the Worker, a hello-world Worker and the room, each its own process");
    const against = options.against ? resolve(options.against) : undefined;
    const ports = await distinctPorts(6);
    const [endpointPort, workerPort, floorPort, realtimePort, againstPort, pglitePort] = ports as [number, number, number, number, number, number];
    const endpoint = startService({
      name: "sql",
      command: process.execPath,
      args: [
        "--import", "tsx",
        fileURLToPath(new URL("../cpu/sql-endpoint-process.ts", import.meta.url)),
        `--port=${endpointPort}`,
        embedded ? `--pglite-port=${pglitePort}` : `--target=${serverAddress(stack.databaseUrl)}`,
      ],
      env: { PGAPPNAME: APPLICATION_NAME },
    });
    services.push(endpoint);
    await waitFor(endpoint, `http://127.0.0.1:${endpointPort}/`);
    const databaseUrl = embedded ? `postgres://postgres@127.0.0.1:${pglitePort}/postgres` : stack.databaseUrl;
    const db: Database = embedded ? (ownDb = connectNodeDatabase(databaseUrl, { max: 4 })) : stack.db;

    const realtimeSecret = randomBytes(24).toString("hex");
    const workerUrl = `http://127.0.0.1:${workerPort}`;
    const floorUrl = `http://127.0.0.1:${floorPort}`;
    const realtimeUrl = `http://127.0.0.1:${realtimePort}`;
    const workerSettings = { databaseUrl, sqlEndpoint: `127.0.0.1:${endpointPort}`, realtimeSecret, authSecret: randomBytes(32).toString("hex") };
    const worker = startWorker(workerSettings, { port: workerPort, realtimeUrl, place: { dir, persistTo: join(dir, "worker-state"), watch: false }, config: billedConfig(dir) });
    services.push(worker);
    const againstWorker = against
      ? startWorker(workerSettings, { port: againstPort, realtimeUrl, place: { dir: join(dir, "against"), persistTo: join(dir, "against-state"), watch: false }, config: billedConfig(dir, against) })
      : undefined;
    if (againstWorker) services.push(againstWorker);
    const againstUrl = `http://127.0.0.1:${againstPort}`;
    const floor = startWranglerDev({
      name: "floor",
      config: fileURLToPath(new URL("../cpu/wrangler.toml", import.meta.url)),
      port: floorPort,
      // Where the I/O floor sends its statements: the same SQL endpoint as the Worker's.
      settings: { SQL_ENDPOINT: `127.0.0.1:${endpointPort}`, DATABASE_URL: databaseUrl },
      envFile: "floor.env",
      place: { dir, persistTo: join(dir, "floor-state"), watch: false },
    });
    services.push(floor);
    const realtime = startRealtime({ realtimeSecret }, { port: realtimePort, apiUrl: workerUrl, place: { dir, persistTo: join(dir, "realtime-state") } });
    services.push(realtime);
    await Promise.all([
      waitFor(worker, `${workerUrl}/v1`),
      waitFor(floor, `${floorUrl}/`),
      waitFor(realtime, `${realtimeUrl}/health`),
      ...(againstWorker ? [waitFor(againstWorker, `${againstUrl}/v1`)] : []),
    ]);
    const running: Services = { worker, floor, realtime, endpoint, workerPort, floorPort, against: againstWorker ? { worker: againstWorker, port: againstPort } : undefined };
    const found = describeProcesses(running);
    progress.done(
      `${Object.entries(found).map(([name, list]) => `${name} ${list.map((p) => `${p.name}:${p.pid}`).join(",")}`).join("; ")}` +
        `; Postgres: ${embedded ? "PGlite in the SQL endpoint's process" : `backends of ${APPLICATION_NAME}`}`,
    );

    progress.step(`cpu: load an organisation of 1,000 tasks, warm up (${warmup} calls each), ${idleMs(plan) / 1000} s idle`);
    const org = await createBenchOrg(db, `bench cpu ${Date.now()}`);
    await growTasks(db, org, 1_000);
    const ids = await someTasks(db, org, 64);
    const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
    let n = 0;
    const apiLoads = (workerUrl: string): Record<Exclude<CallKey, FloorKey>, Omit<HttpLoad, "connections" | "amount">> => ({
      unknown: { url: `${workerUrl}/v1/nope`, headers, expectStatus: 404 },
      describe: { url: `${workerUrl}/v1`, headers },
      task: { url: `${workerUrl}/v1/tasks/${ids[0]}`, headers },
      list: { url: `${workerUrl}/v1/tasks?limit=50`, headers },
      create: {
        url: `${workerUrl}/v1/tasks`,
        method: "POST",
        headers,
        body: () => JSON.stringify({ title: `CPU task ${n++}`, projectId: org.projects[n % org.projects.length]!, assigneeId: org.people[n % org.people.length]!, dueDate: "2026-06-01" }),
      },
      change: {
        url: `${workerUrl}/v1/tasks/x`,
        method: "PATCH",
        headers,
        path: () => `/v1/tasks/${ids[n++ % ids.length]}`,
        body: () => JSON.stringify({ title: `CPU change ${n}` }),
      },
    });
    const floorLoads: Record<FloorKey, Omit<HttpLoad, "connections" | "amount">> = {
      floor: { url: `${floorUrl}/`, headers },
      ioRead: { url: `${floorUrl}/io/read`, headers },
      ioWrite: { url: `${floorUrl}/io/write`, headers },
    };
    const thisLoads = apiLoads(workerUrl);
    const againstLoads = apiLoads(againstUrl);
    const measures: Measure[] = [
      ...CALLS.map((call) => ({ id: call.key as string, call, target: (isFloor(call.key) ? "floor" : "worker") as Target })),
      ...(against ? API_CALLS.map((call) => ({ id: `${call.key}@against`, call, target: "against" as Target })) : []),
    ];
    const loadOf = ({ call, target }: Measure) => (isFloor(call.key) ? floorLoads[call.key] : (target === "against" ? againstLoads : thisLoads)[call.key]);
    for (const measure of measures) {
      const result = await httpLoad({ ...loadOf(measure), connections: CONCURRENCY, amount: warmup });
      if (result.failures > 0) throw new Error(`cpu: warm-up of ${measure.call.name}${measure.target === "against" ? " (against)" : ""}: ${result.failures} of ${warmup} calls failed`);
    }
    await sleep(SETTLE_MS);
    const postgresPids = async (): Promise<number[] | "endpoint"> => (embedded ? "endpoint" : backendPids(stack.db));
    const read = async (target: Target) => snapshot(running, target, await postgresPids());
    // CPU with no calls at all, ms a second by group, each reading: each Worker's processes and the floor's.
    const targets: Target[] = ["worker", "floor", ...(against ? ["against" as const] : [])];
    const idleReadings: Partial<Record<Target, Record<Group, number>>>[] = [];
    const readIdle = async () => {
      const readAll = async () => Object.fromEntries(await Promise.all(targets.map(async (t) => [t, await read(t)] as const))) as Record<Target, Record<Group, Ticks>>;
      const before = await readAll();
      const started = performance.now();
      await sleep(idleMs(plan));
      const after = await readAll();
      const seconds = (performance.now() - started) / 1000;
      idleReadings.push(Object.fromEntries(targets.map((t) => [t, mapGroups((g) => spentMs(before[t][g], after[t][g]).ms / seconds)])));
      const line = (spent: Record<Group, Ticks>[], groups: readonly Group[]) =>
        groups.map((g) => `${GROUP_NAMES[g]} ${(spentMs(spent[0]![g], spent[1]![g]).ms / seconds).toFixed(1)}`).join(", ");
      return `idle CPU, ms a second: ${line([before.worker, after.worker], GROUPS)}; the hello-world Worker's ${line([before.floor, after.floor], ["workerd", "proxy", "wrangler"])}`;
    };
    progress.done(await readIdle());

    type Measured = { raw: Record<Group, number[]>; seconds: number[]; rps: number[]; p50: number[]; p99: number[]; failures: number; lost: number; valid: boolean[] };
    const measured = new Map<string, Measured>(
      measures.map((c) => [c.id, { raw: mapGroups(() => [] as number[]), seconds: [], rps: [], p50: [], p99: [], failures: 0, lost: 0, valid: [] }]),
    );
    for (let round = 0; round < rounds; round++) {
      // The order rotates each round, so no call type is always first (or always after a write).
      // A call's batches on the two Workers (--against) run one after the other, which first
      // alternating by round, so a drift of the machine's load within a round touches both alike.
      const slots = CALLS.map((call) => measures.filter((m) => m.call.key === call.key));
      const order = slots.map((_, i) => slots[(i + round) % slots.length]!).flatMap((slot) => (round % 2 ? [...slot].reverse() : slot));
      for (const measure of order) {
        const { call, target } = measure;
        progress.step(`cpu: round ${round + 1}/${rounds}, ${call.name}${target === "against" ? " (against)" : ""}, ${calls} calls at c=${CONCURRENCY}`);
        const before = await read(target);
        const startedAt = performance.now();
        const result = await httpLoad({ ...loadOf(measure), connections: CONCURRENCY, amount: calls });
        await sleep(SETTLE_MS);
        const after = await read(target);
        const m = measured.get(measure.id)!;
        m.seconds.push((performance.now() - startedAt) / 1000);
        const spent = mapGroups((g) => spentMs(before[g], after[g]));
        for (const g of GROUPS) m.raw[g].push(spent[g].ms);
        // A process that ended mid-batch (a restart) took its CPU with it; failed calls did not do the work.
        const lostIn = GROUPS.filter((g) => spent[g].lost > 0 && !(embedded && g === "postgres"));
        const lost = lostIn.reduce((sum, g) => sum + spent[g].lost, 0);
        m.lost += lost;
        m.valid.push(lost === 0 && result.failures === 0);
        m.rps.push(result.rps);
        m.p50.push(result.p50);
        m.p99.push(result.p99);
        m.failures += result.failures;
        progress.done(
          `CPU ms a call, idle CPU included: ${GROUPS.filter((g) => !(embedded && g === "postgres")).map((g) => `${GROUP_NAMES[g]} ${ms(spent[g].ms / calls)}`).join(", ")}; ` +
            `${int(result.rps)} req/s${result.failures ? `, ${result.failures} FAILED` : ""}${lost ? `, ${lost} process(es) ENDED mid-batch (${lostIn.map((g) => GROUP_NAMES[g]).join(", ")})` : ""}`,
        );
      }
    }

    progress.step(`cpu: idle CPU again, ${idleMs(plan) / 1000} s`);
    progress.done(await readIdle());
    // The lower of the two readings: something that happens once (a reload) must not count as idle.
    const idleOf = (target: Target) => mapGroups((g) => Math.min(...idleReadings.map((r) => r[target]![g])));
    const idleMsPerSecond = idleOf("worker");
    const floorIdleMsPerSecond = idleOf("floor");
    const againstIdleMsPerSecond = against ? idleOf("against") : undefined;

    const results: CpuCall[] = measures.map(({ id, call, target }) => {
      const m = measured.get(id)!;
      const idle = target === "floor" ? floorIdleMsPerSecond : target === "against" ? againstIdleMsPerSecond! : idleMsPerSecond;
      const perRound = mapGroups((g) => m.raw[g].map((spent, i) => Math.max(0, spent - idle[g] * m.seconds[i]!) / calls));
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
    const floors = results.filter((r) => isFloor(r.key));
    const apiCalls = results.filter((r) => !isFloor(r.key));
    const times = (a: number, b: number) => (b > 0 ? a / b : NaN);
    for (const r of apiCalls) {
      const io = results.find((f) => f.key === IO_FLOOR[r.key as keyof typeof IO_FLOOR])!;
      r.overIo = { floor: io.key as FloorKey, times: times(r.median.workerd, io.median.workerd), ownMs: r.median.workerd - io.median.workerd };
      r.xFloor = {
        workerd: times(r.median.workerd, floorCall.median.workerd),
        wrangler: times(r.median.wrangler, floorCall.median.wrangler),
        proxy: times(r.median.proxy, floorCall.median.proxy),
        bothWorkerd: times(r.median.workerd + r.median.proxy, floorCall.median.workerd + floorCall.median.proxy),
      };
    }
    const x = (v: number) => (Number.isNaN(v) ? "n/a" : `${v.toFixed(1)}×`);
    const cpuNote = (r: CpuCall) =>
      [
        `room workerd ${ms(r.median.roomWorkerd)}, partykit Node ${ms(r.median.partykit)}`,
        embedded ? `SQL endpoint with PGlite ${ms(r.median.endpoint)}` : `SQL endpoint ${ms(r.median.endpoint)}, Postgres ${ms(r.median.postgres)}`,
      ].join("; ");
    const load = `c=${CONCURRENCY}, ${rounds} × ${calls}`;
    for (const f of floors) {
      rows.push({
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
    }
    for (const r of apiCalls) {
      rows.push({
        section: "8 CPU",
        name: r.call,
        load,
        rps: r.rps,
        p50: r.p50,
        p99: r.p99,
        note:
          `workerd ${ms(r.median.workerd)} ms a call = ${x(r.xFloor!.workerd)} the floor (target ≤ ${r.target}×)` +
          (r.overIo!.floor === "floor" ? "; " : ` = ${x(r.overIo!.times)} its I/O floor (${ms(r.overIo!.ownMs)} ms beyond it); `) +
          `proxy workerd ${ms(r.median.proxy)} = ${x(r.xFloor!.proxy)} (both workerd ${x(r.xFloor!.bothWorkerd)}); ` +
          `wrangler's Node ${ms(r.median.wrangler)} = ${x(r.xFloor!.wrangler)}; ${cpuNote(r)}${failed(r)}`,
      });
    }
    /** The app alone of this checkout, or (`root`) of the --against one, its rows marked so. */
    const measureAppAlone = async (root?: string): Promise<AppAlone> => {
      const mark = root ? " [against]" : "";
      progress.step(root ? `cpu: the app alone of the --against checkout (${root})` : "cpu: the app alone (bench/app-alone.ts), its fetch in Node against recorded answers");
      const alone = await appAlone(plan, root);
      for (const r of alone.rows) {
        rows.push({
          section: "8 CPU",
          name: `app alone: ${r.call}${mark}`,
          load: `1 at a time, ${alone.rounds} × ${alone.calls}`,
          note: `${int(r.median)} µs of CPU a call (median; min ${int(r.min)})${r.target && !root ? `, target ≤ ${r.target} µs` : ""}; Node ${alone.node}`,
        });
      }
      progress.done(alone.rows.map((r) => `${r.call} ${int(r.median)} µs`).join(", "));
      return alone;
    };
    const alone = await measureAppAlone();
    const againstInfo: CpuSection["against"] = against ? { dir: against, commit: commitOf(against), appAlone: await measureAppAlone(against) } : undefined;
    return {
      ...(againstInfo ? { against: againstInfo } : {}),
      appAlone: alone,
      method:
        `utime+stime from /proc/<pid>/stat (${CLOCK_TICKS} ticks a second) of each process group, read before and ${SETTLE_MS} ms after each batch ` +
        `of ${calls} calls at ${CONCURRENCY} in flight (autocannon, keep-alive), less the group's idle CPU a second (the lower of two readings, ` +
        `before and after the rounds) times the batch's duration, ` +
        `divided by the calls; ${rounds} rounds, the order rotating; medians over the rounds. ` +
        `Processes started as npm run dev starts them (cli/dev/services.ts), each its own OS process.`,
      clockTicks: CLOCK_TICKS,
      rounds,
      callsPerBatch: calls,
      concurrency: CONCURRENCY,
      postgres: embedded
        ? "PGlite, in the SQL endpoint's process: the SQL endpoint column includes it, and the Postgres column is that same process"
        : `the client backends serving the SQL endpoint's connections (pg_stat_activity.application_name = '${APPLICATION_NAME}'), not the cluster's background processes`,
      groups: {
        workerd: "the workerd process of wrangler's dev server that runs the Worker (not the one owning the port); for the floor, the hello-world Worker's",
        proxy: "the workerd process of wrangler's dev server that owns the Worker's port and passes requests on (wrangler's ProxyWorker)",
        wrangler: "every other process of the tree wrangler runs in: its Node process(es), esbuild",
        roomWorkerd: "the workerd processes of partykit dev",
        partykit: "every other process of partykit dev's tree (Node, esbuild)",
        endpoint: "the SQL endpoint's Node process (bench/cpu/sql-endpoint-process.ts)",
        postgres: embedded ? "the SQL endpoint's process (PGlite runs in it)" : `client backends with application_name ${APPLICATION_NAME}`,
      },
      processes: found,
      idleMsPerSecond,
      floorIdleMsPerSecond,
      calls: results,
    };
  } finally {
    process.off("exit", killAll);
    await ownDb?.close().catch(() => {});
    await Promise.all(services.map((service) => service.stop().catch(() => {})));
    rmSync(dir, { recursive: true, force: true });
  }
}

const failed = (r: CpuCall) =>
  `${r.failures ? `; ${r.failures} calls FAILED` : ""}${r.lostProcesses ? `; ${r.lostProcesses} processes ended mid-batch` : ""}` +
  `${r.roundsCounted < r.perRound.workerd.length ? `; medians of the ${r.roundsCounted} rounds without either` : ""}`;

/**
 * The project's wrangler.toml without its [assets] table, written into `dir`: the Worker as a
 * deployment pays for it. Locally the asset router runs in the Worker's own workerd before every
 * request (0.4 to 0.9 ms of CPU a call here, bench/README.md "The asset router"); on Cloudflare it
 * is the platform's, and requests to assets are not billed. The floor has no assets either.
 */
function billedConfig(dir: string, root = PROJECT_ROOT): string {
  const text = readFileSync(join(root, "wrangler.toml"), "utf8");
  const start = text.search(/^\[assets\]/m);
  if (start === -1) throw new Error("cpu: wrangler.toml has no [assets] table to leave out");
  const rest = text.slice(start + "[assets]".length);
  const next = rest.search(/^\[/m);
  const billed = (text.slice(0, start) + (next === -1 ? "" : rest.slice(next))).replace(/^main = "(.+)"$/m, (_, main: string) => `main = ${JSON.stringify(join(root, main))}`);
  const file = join(dir, root === PROJECT_ROOT ? "wrangler.billed.toml" : "wrangler.against.toml");
  writeFileSync(file, billed);
  return file;
}

/** The checkout's commit, and "+ changes" when its tree differs from it. */
function commitOf(dir: string): string {
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
  try {
    return `${git("rev-parse", "--short", "HEAD")}${git("status", "--porcelain", "--untracked-files=no") ? " + changes" : ""}`;
  } catch {
    return "unknown (not a git checkout)";
  }
}

/** The median; of an even count (rounds left out), the mean of the two middle values. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length === 0 ? NaN : sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function mapGroups<T>(value: (group: Group) => T): Record<Group, T> {
  return Object.fromEntries(GROUPS.map((g) => [g, value(g)])) as Record<Group, T>;
}

/** host:port of a postgres:// URL's server. */
function serverAddress(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname || "localhost"}:${url.port || 5432}`;
}

async function distinctPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await reserveFreePort());
  return [...ports];
}

async function waitFor(service: ServiceProcess, url: string): Promise<void> {
  try {
    await waitForHttp(url, { timeoutMs: START_TIMEOUT_MS, abandon: service.exited });
  } catch (error) {
    throw new Error(`cpu: ${service.name} did not start: ${(error as Error).message}\n${service.keptOutput()}`, { cause: error });
  }
}

/** wrangler dev's workerd that owns the port (`--socket-addr=entry=127.0.0.1:<port>`) is its proxy. */
const ownsPort = (pid: number, port: number) => commandLine(pid).includes(`entry=127.0.0.1:${port} `) || commandLine(pid).endsWith(`entry=127.0.0.1:${port}`);

/**
 * Each process group's processes and their ticks, now: the first three columns from the wrangler
 * serving `target`; Postgres from the backends given, or the SQL endpoint's process (PGlite).
 */
function snapshot(s: Services, target: Target, postgres: number[] | "endpoint"): Record<Group, Ticks> {
  const all = readAllProcesses();
  const groups = mapGroups(() => new Map() as Ticks);
  const [wrangler, port] = target === "worker" ? [s.worker, s.workerPort] : target === "against" ? [s.against!.worker, s.against!.port] : [s.floor, s.floorPort];
  for (const p of processTree(wrangler.pid!, all)) {
    const group: Group = p.name !== "workerd" ? "wrangler" : ownsPort(p.pid, port) ? "proxy" : "workerd";
    groups[group].set(p.pid, p.ticks);
  }
  for (const p of processTree(s.realtime.pid!, all)) groups[p.name === "workerd" ? "roomWorkerd" : "partykit"].set(p.pid, p.ticks);
  for (const p of processTree(s.endpoint.pid!, all)) groups.endpoint.set(p.pid, p.ticks);
  if (postgres === "endpoint") groups.postgres = groups.endpoint;
  else {
    for (const pid of postgres) {
      const p = readProcess(pid);
      if (p) groups.postgres.set(pid, p.ticks);
    }
  }
  return groups;
}

/** The processes of each service, as found once they answer. */
function describeProcesses(s: Services): Record<string, { pid: number; name: string; command: string }[]> {
  const all = readAllProcesses();
  const list = (root: number) => processTree(root, all).map((p) => ({ pid: p.pid, name: p.name, command: commandLine(p.pid).slice(0, 200) }));
  return {
    worker: list(s.worker.pid!),
    floor: list(s.floor.pid!),
    realtime: list(s.realtime.pid!),
    endpoint: list(s.endpoint.pid!),
    ...(s.against ? { against: list(s.against.worker.pid!) } : {}),
  };
}

/** Postgres backends serving the SQL endpoint's connections. */
async function backendPids(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ pid: number }>(
    "select pid from pg_stat_activity where application_name = $1 and datname = current_database() and backend_type = 'client backend'",
    [APPLICATION_NAME],
  );
  return rows.map((r) => Number(r.pid));
}
