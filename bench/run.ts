// `npm run bench [-- --quick] [-- --only=http,roundtrips,batch,cpu] [-- --label=before] [-- --against=<dir>]`: opsroom measured
// against its ceilings, in one run on one stack. Each section is a file of bench/sections/:
//
//  1, 2. reads-writes.ts: GET /v1/tasks?limit=50, GET /v1/tasks/:id, POST /v1/tasks and
//        PATCH /v1/tasks/:id at 1, 16 and 64 connections, beside their SQL and runtime ceilings;
//  3.    round trips per call, with the SQL endpoint delaying every statement (bench/round-trips.ts);
//  4.    growth.ts: a filtered, paged task list and a write at 1 k, 10 k and 100 k tasks;
//  5.    fan-out.ts: write-to-socket latency with 1, 100 and 1000 sockets in one room;
//  6.    webhooks.ts: deliveries per second from one room to a fast local receiver;
//  7.    batch.ts: 1000 tasks as 10 POST /v1/batch of 100 against 1000 POST /v1/tasks, wall time and round trips;
//  8.    cpu.ts: CPU per call of each process (the Worker's workerd, wrangler, the room, the SQL endpoint,
//        Postgres), against a hello-world Worker's, the processes started as `npm run dev` starts them;
//  9.    statements.ts: the database's time of GET one task, a list of 50 and a PATCH, beside minimal
//        statements doing the same work, on one connection, parse, plan and execute apart;
//  10.   org-writes.ts: writes per second of one organisation (64 writers) against 16 sharing the load.
//
// Prints one table, and writes it as JSON and Markdown to bench/results/ (plus the query plans).
// bench/README.md says how to read it; bench/results/README.md gives the current figures.
import { cpus, loadavg, totalmem } from "node:os";
import type { CpuSection } from "./cpu/calls.ts";
import { createBenchOrg } from "./lib/data.ts";
import { createProgress } from "./lib/progress.ts";
import { startBenchStack } from "./lib/stack.ts";
import { ms, writeReport, type Plans, type Row } from "./lib/table.ts";
import { DELAY_MS, measureRoundTrips, type RoundTrips } from "./round-trips.ts";
import { batchLoading, steps as batchSteps, type BatchSection } from "./sections/batch.ts";
import { FULL, QUICK, type BenchRun } from "./sections/context.ts";
import { cpuPerCall, steps as cpuSteps } from "./sections/cpu.ts";
import { fanOut, STEPS as FANOUT_STEPS } from "./sections/fan-out.ts";
import { GROWTH, growth, STEPS as GROWTH_STEPS } from "./sections/growth.ts";
import { orgWrites, STEPS as ORG_WRITE_STEPS, type OrgWrites } from "./sections/org-writes.ts";
import { readsAndWrites, STEPS as HTTP_STEPS } from "./sections/reads-writes.ts";
import { statementCost, STEPS as STATEMENT_STEPS, type StatementFigures } from "./sections/statements.ts";
import { webhooks, STEPS as WEBHOOK_STEPS } from "./sections/webhooks.ts";

const quick = process.argv.includes("--quick");
const only = process.argv
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
const label = process.argv.find((a) => a.startsWith("--label="))?.slice("--label=".length);
/** `--against=<dir>`: the CPU section also measures the Worker of that checkout, in the same rounds (bench/sections/cpu.ts). */
const against = process.argv.find((a) => a.startsWith("--against="))?.slice("--against=".length);
const wanted = (section: "http" | "roundtrips" | "growth" | "fanout" | "webhooks" | "batch" | "cpu" | "statements" | "orgwrites") =>
  !only || only.includes(section);
const plan = quick ? QUICK : FULL;
const ROUND_TRIP_STEPS = 8;

const steps =
  1 +
  (wanted("http") ? HTTP_STEPS : 0) +
  (wanted("roundtrips") ? ROUND_TRIP_STEPS : 0) +
  (wanted("growth") ? GROWTH_STEPS : 0) +
  (wanted("fanout") ? FANOUT_STEPS : 0) +
  (wanted("webhooks") ? WEBHOOK_STEPS : 0) +
  (wanted("batch") ? batchSteps(plan) : 0) +
  (wanted("cpu") ? cpuSteps(plan, against) : 0) +
  (wanted("statements") ? STATEMENT_STEPS : 0) +
  (wanted("orgwrites") ? ORG_WRITE_STEPS : 0);
const progress = createProgress(steps);
const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadBefore: loadavg()
    .map((v) => v.toFixed(2))
    .join(" "),
  loadAfter: "",
};

progress.step("start the stack (database, SQL endpoint, Worker, partykit dev)");
const stack = await startBenchStack({ realtime: true });
// Stopped from outside: close the stack; the sections' own processes are killed on exit (cpu.ts).
for (const [signal, code] of [
  ["SIGINT", 130],
  ["SIGTERM", 143],
] as const)
  process.once(signal, () => void stack.close().finally(() => process.exit(code)));
try {
  const databaseVersion = (await stack.db.query<{ v: string }>("select version() as v")).rows[0]!.v.split(" on ")[0]!;
  progress.done(`${stack.databaseLabel}, Worker ${stack.workerUrl}, realtime ${stack.realtimeUrl}`);
  const rows: Row[] = [];
  const run: BenchRun = { stack, plan, progress, rows };
  let roundTrips: RoundTrips[] = [];
  let plans: Plans | null = null;
  let batch: BatchSection | null = null;
  let cpu: CpuSection | null = null;
  let statements: StatementFigures[] | null = null;
  let orgWriteFigures: OrgWrites | null = null;
  if (wanted("http")) await readsAndWrites(run);
  if (wanted("roundtrips")) roundTrips = await roundTripSection(run);
  if (wanted("growth")) plans = await growth(run);
  if (wanted("fanout")) await fanOut(run);
  if (wanted("webhooks")) await webhooks(run);
  if (wanted("batch")) batch = await batchLoading(run);
  if (wanted("cpu")) cpu = await cpuPerCall(run, { against });
  if (wanted("statements")) statements = await statementCost(run, { against });
  if (wanted("orgwrites")) orgWriteFigures = await orgWrites(run);
  machine.loadAfter = loadavg()
    .map((v) => v.toFixed(2))
    .join(" ");
  progress.finish();
  const title =
    `opsroom bench (${quick ? "quick" : "full"}${only ? `, only ${only.join(", ")}` : ""}${label ? `, ${label}` : ""}), ` +
    `${stack.kind === "server" ? databaseVersion : "embedded PGlite (in memory)"}`;
  writeReport({
    title,
    machineLine:
      `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
      `load average before ${machine.loadBefore}, after ${machine.loadAfter}; ${new Date().toISOString()}`,
    name: `${stack.kind === "server" ? "postgres" : "pglite"}${quick ? "-quick" : ""}${label ? `-${label}` : ""}`,
    rows,
    plans,
    largestGrowth: GROWTH.at(-1)!,
    extra: {
      quick,
      database: stack.kind === "server" ? databaseVersion : "PGlite",
      machine,
      plan,
      roundTrips,
      batch,
      cpu,
      statements,
      orgWrites: orgWriteFigures,
    },
  });
} finally {
  await stack.close();
}

/** Section 3: database round trips per call, the SQL endpoint holding every statement back. */
async function roundTripSection({ stack, plan, rows }: BenchRun): Promise<RoundTrips[]> {
  const org = await createBenchOrg(stack.db, `bench round-trips ${Date.now()}`);
  const results = await measureRoundTrips({
    base: stack.workerUrl,
    key: org.key,
    sqlEndpoint: stack.sqlEndpoint,
    samples: plan.rtSamples,
    onCall: (name) => progress.step(`round trips: ${name}`),
    onResult: (r) => progress.done(`${r.roundTrips.toFixed(2)} round trips (p50 ${ms(r.directMs)} → ${ms(r.delayedMs)} ms)`),
  });
  for (const r of results) {
    rows.push({
      section: "3 round trips",
      name: r.call,
      load: `${DELAY_MS} ms each way`,
      p50: r.delayedMs,
      note: `${r.roundTrips.toFixed(2)} round trips (p50 ${ms(r.directMs)} ms undelayed)`,
    });
  }
  return results;
}
