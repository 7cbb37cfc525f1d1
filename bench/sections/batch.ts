import { createBenchOrg, growTasks, type BenchOrg } from "../lib/data.ts";
import { median, percentile } from "../lib/load.ts";
import { int, ms } from "../lib/table.ts";
import { DELAY_MS } from "../round-trips.ts";
import type { BenchRun, Plan } from "./context.ts";

// Section 7: loading many tasks. 1000 tasks as 10 POST /v1/batch of 100 creates, against the same
// 1000 tasks as single POST /v1/tasks calls, 8 in flight: the wall time of each load (a median over
// loads that alternate), and the database round trips of each, measured as section 3 measures
// them (each call timed alternately with the SQL endpoint passing statements straight through and
// holding each request and its answer back; the added latency over one round trip). A batch of 100
// creates is a few hundred ms of the Worker's CPU, which on a loaded machine varies by more than
// 50 ms each way would add, so a batch is measured with 250 ms each way (a single call with 50, as
// in section 3). The bench key's rate limit is out of the way (bench/lib/data.ts), so a batch
// counting as 100 requests is never refused.

export const TASKS = 1_000;
export const BATCH_SIZE = 100;
export const SINGLE_CONCURRENCY = 8;
export const BATCH_CONCURRENCY = [1, 2];
/** The SQL endpoint's delay each way when measuring a batch's round trips (a single call's: DELAY_MS). */
export const BATCH_DELAY_MS = 250;

/** Loads of 1000 tasks each way; samples each way of one call, for its round trips. */
const shape = (plan: Plan) =>
  plan.quick ? { loads: 1, batchSamples: 4, singleSamples: 10 } : { loads: 3, batchSamples: 6, singleSamples: 20 };

/** Progress steps: each load, then the round trips of a single call and of a batch. */
export const steps = (plan: Plan) => shape(plan).loads * (1 + BATCH_CONCURRENCY.length) + 2;

export interface BatchLoad {
  way: string;
  inFlight: number;
  /** Wall time of each load of 1000 tasks, in the order run. */
  wallMs: number[];
  medianWallMs: number;
  /** Latency of each request (a single call or a batch of 100), over all loads. */
  p50: number;
  p99: number;
}

export interface BatchSection {
  tasks: number;
  batchSize: number;
  loads: BatchLoad[];
  /** Median wall time of the single calls over that of the batches, one batch in flight. */
  ratio: number;
  roundTrips: { single: RequestRoundTrips; batch: RequestRoundTrips };
}

interface RequestRoundTrips {
  /** The SQL endpoint's delay each way, when delayed. */
  delayMs: number;
  directMs: number;
  delayedMs: number;
  /** Per request: a single call, or a batch of 100. */
  perRequest: number;
  /** For the whole load of 1000 tasks. */
  perLoad: number;
}

export async function batchLoading({ stack, plan, progress, rows }: BenchRun): Promise<BatchSection> {
  const { loads, batchSamples, singleSamples } = shape(plan);
  const org = await createBenchOrg(stack.db, `bench batch ${Date.now()}`);
  await growTasks(stack.db, org, 1_000);
  const { single, batch } = loadCalls(stack.workerUrl, org);

  // Warm the isolate, the statements and the key's rate limiter (its first call reads the limit).
  for (let i = 0; i < 4; i++) await single();
  await batch();

  const ways = [
    { way: `${TASKS} × POST /v1/tasks`, inFlight: SINGLE_CONCURRENCY, requests: TASKS, call: single },
    ...BATCH_CONCURRENCY.map((c) => ({
      way: `${TASKS / BATCH_SIZE} × POST /v1/batch of ${BATCH_SIZE} creates`,
      inFlight: c,
      requests: TASKS / BATCH_SIZE,
      call: batch,
    })),
  ];
  const measured = ways.map(() => ({ wallMs: [] as number[], latencies: [] as number[] }));
  // Loads alternate (singles, batches one at a time, two at a time, then again), so a change in the
  // machine's load touches every way alike.
  for (let load = 0; load < loads; load++) {
    for (const [i, way] of ways.entries()) {
      progress.step(`batch: ${TASKS} tasks as ${way.way}, ${way.inFlight} in flight${loads > 1 ? ` (load ${load + 1}/${loads})` : ""}`);
      const before = await taskCount(stack, org);
      const t0 = performance.now();
      const latencies = await inFlight(way.call, way.requests, way.inFlight);
      const wall = performance.now() - t0;
      const added = (await taskCount(stack, org)) - before;
      if (added !== TASKS) throw new Error(`${way.way}: ${added} tasks written, not ${TASKS}`);
      measured[i]!.wallMs.push(wall);
      measured[i]!.latencies.push(...latencies);
      progress.done(`${int(wall)} ms, ${int((TASKS / wall) * 1000)} tasks/s, p50 ${ms(median(latencies))} ms a request`);
    }
  }

  progress.step(`batch: round trips of POST /v1/tasks (${DELAY_MS} ms each way)`);
  const singleRt = await roundTrips(stack, single, singleSamples, TASKS, DELAY_MS);
  progress.done(
    `${singleRt.perRequest.toFixed(2)} a call (p50 ${ms(singleRt.directMs)} → ${ms(singleRt.delayedMs)} ms) → ${int(singleRt.perLoad)} for ${TASKS} tasks`,
  );
  progress.step(`batch: round trips of POST /v1/batch of ${BATCH_SIZE} (${BATCH_DELAY_MS} ms each way)`);
  const batchRt = await roundTrips(stack, batch, batchSamples, TASKS / BATCH_SIZE, BATCH_DELAY_MS);
  progress.done(
    `${batchRt.perRequest.toFixed(2)} a batch (p50 ${ms(batchRt.directMs)} → ${ms(batchRt.delayedMs)} ms) → ${batchRt.perLoad.toFixed(1)} for ${TASKS} tasks`,
  );

  const results: BatchLoad[] = ways.map((way, i) => {
    const sorted = Float64Array.from(measured[i]!.latencies).sort();
    return {
      way: way.way,
      inFlight: way.inFlight,
      wallMs: measured[i]!.wallMs,
      medianWallMs: median(measured[i]!.wallMs),
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  });
  const ratio = results[0]!.medianWallMs / results[1]!.medianWallMs;
  pushRows(rows, results, singleRt, batchRt);
  return { tasks: TASKS, batchSize: BATCH_SIZE, loads: results, ratio, roundTrips: { single: singleRt, batch: batchRt } };
}

/** One POST /v1/tasks, and one POST /v1/batch of BATCH_SIZE creates, each checked; every task new. */
function loadCalls(base: string, org: BenchOrg) {
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  let n = 0;
  const newTask = () => {
    const i = n++;
    return {
      title: `Loaded task ${i}`,
      projectId: org.projects[i % org.projects.length]!,
      assigneeId: org.people[i % org.people.length]!,
      dueDate: "2026-06-01",
    };
  };

  const single = async () => {
    const response = await fetch(`${base}/v1/tasks`, { method: "POST", headers, body: JSON.stringify(newTask()) });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`POST /v1/tasks: ${response.status} ${text.slice(0, 300)}`);
  };
  const batch = async () => {
    const operations = Array.from({ length: BATCH_SIZE }, () => ({ method: "POST", path: "/v1/tasks", body: newTask() }));
    const response = await fetch(`${base}/v1/batch`, { method: "POST", headers, body: JSON.stringify({ operations }) });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`POST /v1/batch: ${response.status} ${text.slice(0, 300)}`);
    const results = (JSON.parse(text) as { data: { status: number }[] }).data;
    if (results.length !== BATCH_SIZE || results.some((r) => r.status !== 201))
      throw new Error(`POST /v1/batch: not ${BATCH_SIZE} creates: ${text.slice(0, 300)}`);
  };
  return { single, batch };
}

/** The section's rows: each way's load, then the round trips of a call and of a batch. */
function pushRows(rows: BenchRun["rows"], results: BatchLoad[], singleRt: RequestRoundTrips, batchRt: RequestRoundTrips) {
  const singles = results[0]!;
  const walls = (r: BatchLoad) =>
    `${TASKS} tasks in ${int(r.medianWallMs)} ms${r.wallMs.length > 1 ? ` (median of ${r.wallMs.map(int).join(", ")})` : ""}`;
  for (const [i, r] of results.entries()) {
    const rt = i === 0 ? singleRt : batchRt;
    const rtNote =
      i === 0
        ? `${rt.perRequest.toFixed(2)} round trips a call → ${int(rt.perLoad)} for ${TASKS} tasks`
        : `${rt.perRequest.toFixed(2)} round trips a batch → ${rt.perLoad.toFixed(1)} for ${TASKS} tasks`;
    const speed = i === 0 ? "" : `; ${(singles.medianWallMs / r.medianWallMs).toFixed(1)}× the single calls' speed`;
    rows.push({
      section: "7 batch",
      name: `${TASKS} tasks as ${r.way} (req/s: tasks/s; p50, p99: a request)`,
      load: `${r.inFlight} in flight`,
      rps: (TASKS / r.medianWallMs) * 1000,
      p50: r.p50,
      p99: r.p99,
      note: `${walls(r)}${speed}; ${rtNote}`,
    });
  }
  for (const [name, rt, unit] of [
    ["POST /v1/tasks", singleRt, "a call"],
    [`POST /v1/batch of ${BATCH_SIZE} creates`, batchRt, "a batch"],
  ] as const) {
    rows.push({
      section: "7 batch",
      name: `round trips: ${name}`,
      load: `${rt.delayMs} ms each way`,
      p50: rt.delayedMs,
      note: `${rt.perRequest.toFixed(2)} round trips ${unit} (p50 ${ms(rt.directMs)} ms undelayed)`,
    });
  }
}

/** `count` calls, `concurrency` in flight; the latency of each. */
async function inFlight(call: () => Promise<unknown>, count: number, concurrency: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const t0 = performance.now();
        await call();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  return latencies;
}

/** As section 3 (bench/round-trips.ts): one call at a time, alternately undelayed and delayed. */
async function roundTrips(
  stack: BenchRun["stack"],
  call: () => Promise<unknown>,
  samples: number,
  perLoad: number,
  delayMs: number,
): Promise<RequestRoundTrips> {
  const direct: number[] = [];
  const delayed: number[] = [];
  const time = async () => {
    const t0 = performance.now();
    await call();
    return performance.now() - t0;
  };
  try {
    for (let i = 0; i < samples; i++) {
      stack.sqlEndpoint.setDelay(0);
      direct.push(await time());
      stack.sqlEndpoint.setDelay(delayMs);
      delayed.push(await time());
    }
  } finally {
    stack.sqlEndpoint.setDelay(0);
  }
  const directMs = median(direct);
  const delayedMs = median(delayed);
  const perRequest = (delayedMs - directMs) / (2 * delayMs);
  return { delayMs, directMs, delayedMs, perRequest, perLoad: perRequest * perLoad };
}

async function taskCount(stack: BenchRun["stack"], org: BenchOrg): Promise<number> {
  const { rows } = await stack.db.query<{ n: string }>("select count(*) as n from tasks where org_id = $1", [org.orgId]);
  return Number(rows[0]!.n);
}
