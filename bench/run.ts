// `npm run bench [-- --quick]`: opsroom measured against its ceilings, in one run on one stack.
//
//  1. reads and writes: GET /v1/tasks?limit=50, GET /v1/tasks/:id, POST /v1/tasks, PATCH /v1/tasks/:id
//     with autocannon at 1, 16 and 64 connections;
//  2. ceilings in the same run: the same SQL (the same db/queries functions, key check included)
//     from Node over node-postgres at the same concurrency, and a trivial route in the same Worker
//     (an unknown path answering 404 through the whole middleware stack);
//  3. database round trips per call, with the bridge delaying every database message;
//  4. growth: a filtered, paged task list and a single write at 1 k, 10 k and 100 k tasks;
//  5. realtime fan-out: write-to-socket latency with 1, 100 and 1000 sockets in one room;
//  6. webhooks: deliveries per second from one room to a fast local receiver.
//
// Prints one table, and writes it as JSON and Markdown to bench/results/ (plus the query plans).
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg, totalmem } from "node:os";
import { fileURLToPath } from "node:url";
import pg from "pg";
import WebSocket from "ws";
import type { Database } from "../db/client.ts";
import { eventsAfter } from "../db/queries/events.ts";
import { encodeCursor } from "../db/queries/paging.ts";
import { createTask, getTask, listTasks, updateTask } from "../db/queries/tasks.ts";
import type { OpsEvent } from "../functions/lib/events.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { createBenchOrg, growTasks, someTasks, type BenchOrg } from "./lib/data.ts";
import { closedLoop, httpLoad, percentile, sequential, type LoadResult } from "./lib/load.ts";
import { createProgress } from "./lib/progress.ts";
import { startBenchStack, type BenchStack } from "./lib/stack.ts";
import { DELAY_MS, measureRoundTrips, type RoundTrips } from "./round-trips.ts";

const quick = process.argv.includes("--quick");
/** `--only=http,roundtrips`: run some sections. `--label=before`: added to the results' file names. */
const only = process.argv.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
const label = process.argv.find((a) => a.startsWith("--label="))?.slice("--label=".length);
const wanted = (section: "http" | "roundtrips" | "growth" | "fanout" | "webhooks") => !only || only.includes(section);
const PLAN = quick
  ? { seconds: 1, warmup: 0.3, rtSamples: 5, growthSamples: 10, fanoutWrites: 3, webhookEvents: 100 }
  : { seconds: 8, warmup: 2, rtSamples: 15, growthSamples: 100, fanoutWrites: 20, webhookEvents: 1000 };
const CONCURRENCY = [1, 16, 64];
/** Seconds per load run; a quick run gives 64 connections a little longer, so each completes a few requests. */
const secondsAt = (c: number) => (quick && c >= 64 ? 2 * PLAN.seconds : PLAN.seconds);
const GROWTH = [1_000, 10_000, 100_000];
const SOCKETS = [1, 100, 1000];
const ROOT = fileURLToPath(new URL("../", import.meta.url));

// ---------------------------------------------------------------------------------------------
// The table

interface Row {
  section: string;
  name: string;
  load: string;
  rps?: number;
  p50?: number;
  p99?: number;
  note?: string;
}
const rows: Row[] = [];
let roundTripResults: RoundTrips[] = [];
const ms = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "" : v < 10 ? v.toFixed(2) : v.toFixed(1));
const int = (v: number | undefined) => (v === undefined ? "" : Math.round(v).toLocaleString("en-US"));
const pct = (a: number, b: number) => `${Math.round((a / b) * 100)}%`;

// ---------------------------------------------------------------------------------------------

const steps =
  1 +
  (wanted("http") ? 9 * CONCURRENCY.length : 0) +
  (wanted("roundtrips") ? 5 : 0) +
  (wanted("growth") ? GROWTH.length + 1 : 0) +
  (wanted("fanout") ? SOCKETS.length : 0) +
  (wanted("webhooks") ? 1 : 0);
const progress = createProgress(steps);
const machine = {
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  loadBefore: loadavg().map((v) => v.toFixed(2)).join(" "),
  loadAfter: "",
};

progress.step("start the stack (database, bridge, Worker, partykit dev)");
const stack = await startBenchStack({ realtime: true });
const cleanup = async () => {
  await stack.close();
};
process.once("SIGINT", () => void cleanup().finally(() => process.exit(130)));
let databaseVersion = "";
try {
  databaseVersion = (await stack.db.query<{ v: string }>("select version() as v")).rows[0]!.v.split(" on ")[0]!;
  progress.done(`${stack.databaseLabel}, Worker ${stack.workerUrl}, realtime ${stack.realtimeUrl}`);
  if (wanted("http")) await readsAndWrites(stack);
  if (wanted("roundtrips")) await roundTrips(stack);
  const plans = wanted("growth") ? await growth(stack) : null;
  if (wanted("fanout")) await fanOut(stack);
  if (wanted("webhooks")) await webhooks(stack);
  machine.loadAfter = loadavg().map((v) => v.toFixed(2)).join(" ");
  progress.finish();
  report(stack, databaseVersion, plans);
} finally {
  await cleanup();
}

// ---------------------------------------------------------------------------------------------
// 1 + 2: reads and writes, against the SQL ceiling and the runtime ceiling

async function readsAndWrites(stack: BenchStack): Promise<void> {
  const org = await createBenchOrg(stack.db, `bench reads-writes ${Date.now()}`);
  await growTasks(stack.db, org, 1_000);
  const ids = await someTasks(stack.db, org, 64);
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const base = stack.workerUrl;
  const newTask = () => ({ title: "Bench task", projectId: org.projects[0]!, assigneeId: org.people[0]!, dueDate: "2026-06-01" });
  let n = 0;
  const nextId = () => ids[n++ % ids.length]!;
  const cases: {
    name: string;
    http: Omit<Parameters<typeof httpLoad>[0], "connections" | "seconds">;
    sql: (db: Database) => Promise<unknown>;
  }[] = [
    {
      name: "GET /v1/tasks?limit=50",
      http: { url: `${base}/v1/tasks?limit=50`, headers },
      sql: (db) => listTasks(db, { keyHash: org.keyHash }, { limit: 50, after: null }, {}),
    },
    {
      name: "GET /v1/tasks/:id",
      http: { url: `${base}/v1/tasks/${ids[0]}`, headers },
      sql: (db) => getTask(db, { keyHash: org.keyHash }, ids[0]!),
    },
    {
      name: "POST /v1/tasks",
      http: { url: `${base}/v1/tasks`, method: "POST", headers, body: () => JSON.stringify(newTask()) },
      sql: (db) => createTask(db, { keyHash: org.keyHash }, newTask() as Parameters<typeof createTask>[2]),
    },
    {
      name: "PATCH /v1/tasks/:id",
      http: { url: `${base}/v1/tasks/x`, method: "PATCH", headers, path: () => `/v1/tasks/${nextId()}`, body: () => JSON.stringify({ title: `Bench ${n}` }) },
      sql: (db) => updateTask(db, { keyHash: org.keyHash }, nextId(), { title: `Bench ${n}` }, null),
    },
  ];

  const runtime: Record<number, LoadResult> = {};
  for (const c of CONCURRENCY) {
    progress.step(`runtime ceiling (GET unknown path → 404) c=${c}`, secondsAt(c));
    if (c === CONCURRENCY[0]) await httpLoad({ url: `${base}/v1/bench-no-such-path`, expectStatus: 404, connections: 16, seconds: PLAN.warmup });
    runtime[c] = await httpLoad({ url: `${base}/v1/bench-no-such-path`, expectStatus: 404, connections: c, seconds: secondsAt(c) });
    progress.done(summary(runtime[c]!));
    rows.push({ section: "2 ceiling", name: "Worker runtime: unknown path → 404, full middleware", load: `c=${c}`, ...numbers(runtime[c]!) });
  }

  for (const kase of cases) {
    const api: Record<number, LoadResult> = {};
    for (const c of CONCURRENCY) {
      progress.step(`${kase.name} c=${c}`, secondsAt(c));
      if (c === CONCURRENCY[0]) await httpLoad({ ...kase.http, connections: 16, seconds: PLAN.warmup });
      api[c] = await httpLoad({ ...kase.http, connections: c, seconds: secondsAt(c) });
      progress.done(summary(api[c]!));
    }
    const ceiling: Record<number, LoadResult> = {};
    for (const c of CONCURRENCY) {
      progress.step(`SQL ceiling: ${kase.name}'s statement from Node (pg) c=${c}`, secondsAt(c));
      const db = connectNodeDatabase(stack.databaseUrl, { max: c });
      try {
        await closedLoop(() => kase.sql(db), c, Math.min(PLAN.warmup, 1));
        ceiling[c] = await closedLoop(() => kase.sql(db), c, secondsAt(c));
      } finally {
        await db.close();
      }
      progress.done(summary(ceiling[c]!));
    }
    for (const c of CONCURRENCY) {
      rows.push({
        section: "1 API",
        name: kase.name,
        load: `c=${c}`,
        ...numbers(api[c]!),
        note: [`${pct(api[c]!.rps, ceiling[c]!.rps)} of SQL, ${pct(api[c]!.rps, runtime[c]!.rps)} of runtime req/s`, numbers(api[c]!).note]
          .filter(Boolean)
          .join("; "),
      });
    }
    for (const c of CONCURRENCY) {
      rows.push({ section: "2 ceiling", name: `SQL of ${kase.name}, from Node (pg pool of ${c})`, load: `c=${c}`, ...numbers(ceiling[c]!) });
    }
  }
}

function numbers(r: LoadResult) {
  const notes = [r.failures ? `${r.failures} failed` : "", r.requests < 100 ? `only ${r.requests} requests` : ""].filter(Boolean);
  return { rps: r.rps, p50: r.p50, p99: r.p99, ...(notes.length ? { note: notes.join(", ") } : {}) };
}

function summary(r: LoadResult): string {
  return `${int(r.rps)} req/s, p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms${r.failures ? `, ${r.failures} FAILED` : ""}`;
}

// ---------------------------------------------------------------------------------------------
// 3: round trips

async function roundTrips(stack: BenchStack): Promise<void> {
  const org = await createBenchOrg(stack.db, `bench round-trips ${Date.now()}`);
  roundTripResults = await measureRoundTrips({
    base: stack.workerUrl,
    key: org.key,
    bridge: stack.bridge,
    samples: PLAN.rtSamples,
    onCall: (name) => progress.step(`round trips: ${name}`),
    onResult: (r) => progress.done(`${r.roundTrips.toFixed(2)} round trips (p50 ${ms(r.directMs)} → ${ms(r.delayedMs)} ms)`),
  });
  for (const r of roundTripResults) {
    rows.push({ section: "3 round trips", name: r.call, load: `${DELAY_MS} ms each way`, p50: r.delayedMs, note: `${r.roundTrips.toFixed(2)} round trips (p50 ${ms(r.directMs)} ms undelayed)` });
  }
}

// ---------------------------------------------------------------------------------------------
// 4: growth, and the plans the list and the write rely on

interface Plans {
  list: string;
  deepPage: string;
  sync: string;
  create: string;
}

async function growth(stack: BenchStack): Promise<Plans> {
  // One organisation per size, all in the same tables, measured in interleaved rounds (one call
  // to each size in turn), so a change in the machine's load touches every size alike.
  const sizes: { size: number; org: BenchOrg; listPath: string; deepPath: string; cursor: string; headers: Record<string, string> }[] = [];
  // "What changed since my last sync": only what the bench itself writes from here on matches.
  const since = new Date().toISOString();
  const syncPath = `/v1/tasks?updatedSince=${since}&limit=50`;
  for (const size of GROWTH) {
    progress.step(`growth: an organisation with ${size.toLocaleString("en-US")} tasks`);
    const org = await createBenchOrg(stack.db, `bench growth ${size} ${Date.now()}`);
    await growTasks(stack.db, org, size);
    const listPath = `/v1/tasks?projectId=${org.projects[0]}&status=todo,in_progress&limit=50`;
    const cursor = await middleCursor(stack.db, org, org.projects[0]!);
    sizes.push({ size, org, listPath, deepPath: `${listPath}&cursor=${cursor}`, cursor, headers: { authorization: `Bearer ${org.key}`, "content-type": "application/json" } });
    progress.done("loaded and analyzed");
  }
  const get = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(stack.workerUrl + path, { headers });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const post = async ({ org, headers }: (typeof sizes)[number]) => {
    const response = await fetch(`${stack.workerUrl}/v1/tasks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ title: "Growth", projectId: org.projects[0], assigneeId: org.people[0], dueDate: "2026-06-01" }),
    });
    if (response.status !== 201) throw new Error(`POST /v1/tasks: ${response.status} ${await response.text()}`);
    await response.arrayBuffer();
  };
  const timed = async (run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    return performance.now() - t0;
  };
  progress.step(`growth: ${PLAN.growthSamples} rounds of list, middle page, sync and write at each size`);
  const results = sizes.map(({ size }) => ({ size, list: [] as number[], deep: [] as number[], sync: [] as number[], write: [] as number[] }));
  for (let round = -5; round < PLAN.growthSamples; round++) {
    for (const [i, entry] of sizes.entries()) {
      const list = await timed(() => get(entry.listPath, entry.headers));
      const deep = await timed(() => get(entry.deepPath, entry.headers));
      const sync = await timed(() => get(syncPath, entry.headers));
      const write = await timed(() => post(entry));
      if (round < 0) continue; // warm-up
      results[i]!.list.push(list);
      results[i]!.deep.push(deep);
      results[i]!.sync.push(sync);
      results[i]!.write.push(write);
    }
  }
  const p50 = (v: number[]) => percentile(Float64Array.from(v).sort(), 50);
  progress.done(results.map((r) => `${r.size / 1000}k: ${ms(p50(r.list))}/${ms(p50(r.deep))}/${ms(p50(r.sync))}/${ms(p50(r.write))} ms`).join(", "));
  const measures: [string, "list" | "deep" | "sync" | "write"][] = [
    ["GET /v1/tasks?projectId=…&status=todo,in_progress&limit=50", "list"],
    ["the same list, a page in the middle (cursor)", "deep"],
    ["GET /v1/tasks?updatedSince=<bench start>&limit=50", "sync"],
    ["POST /v1/tasks", "write"],
  ];
  for (const [name, key] of measures) {
    const p50s = results.map((r) => p50(r[key]));
    const spread = Math.max(...p50s) / Math.min(...p50s) - 1;
    results.forEach((r, i) => {
      rows.push({
        section: "4 growth",
        name,
        load: `${r.size.toLocaleString("en-US")} tasks`,
        p50: p50s[i],
        p99: percentile(Float64Array.from(r[key]).sort(), 99),
        ...(i === results.length - 1 ? { note: `p50 spread ${Math.round(spread * 100)}% (target ≤ 20%)` } : {}),
      });
    });
  }
  const largest = sizes.at(-1)!;
  return explainGrowth(stack, largest.org, largest.org.projects[0]!, largest.cursor, since);
}

async function middleCursor(db: Database, org: BenchOrg, project: string): Promise<string> {
  const { rows } = await db.query<{ created_at: Date; id: string }>(
    `select created_at, id from tasks where org_id = $1 and project_id = $2 and status in ('todo','in_progress')
      order by created_at, id offset (select count(*) / 2 from tasks where org_id = $1 and project_id = $2 and status in ('todo','in_progress')) limit 1`,
    [org.orgId, project],
  );
  return encodeCursor({ createdAt: rows[0]!.created_at.toISOString(), id: rows[0]!.id });
}

/** EXPLAIN ANALYZE of the exact statements the growth calls send, at the largest size. */
async function explainGrowth(stack: BenchStack, org: BenchOrg, project: string, cursor: string, since: string): Promise<Plans> {
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  try {
    const statements: { text: string; params: unknown[] }[] = [];
    const recorder: Database = {
      query: async <R>(text: string, params: unknown[] = []) => {
        statements.push({ text, params });
        return { rows: (await client.query(text, params)).rows as R[] };
      },
      queryCount: 0,
      close: async () => {},
    };
    const actor = { keyHash: org.keyHash };
    const { decodeCursor } = await import("../db/queries/paging.ts");
    await client.query("begin");
    await listTasks(recorder, actor, { limit: 50, after: null }, { projectId: project, status: ["todo", "in_progress"] });
    await listTasks(recorder, actor, { limit: 50, after: decodeCursor(cursor) }, { projectId: project, status: ["todo", "in_progress"] });
    await listTasks(recorder, actor, { limit: 50, after: null }, { updatedSince: since });
    await createTask(recorder, actor, { title: "Plan", projectId: project, assigneeId: org.people[0]!, dueDate: "2026-06-01" } as Parameters<typeof createTask>[2]);
    await client.query("rollback");
    const explain = async ({ text, params }: { text: string; params: unknown[] }) => {
      await client.query("begin");
      try {
        const result = await client.query<{ "QUERY PLAN": string }>(`explain (analyze, costs off, timing off, summary off) ${text}`, params);
        return result.rows.map((r) => r["QUERY PLAN"]).join("\n");
      } finally {
        await client.query("rollback");
      }
    };
    return {
      list: await explain(statements[0]!),
      deepPage: await explain(statements[1]!),
      sync: await explain(statements[2]!),
      create: await explain(statements[3]!),
    };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// 5: realtime fan-out

async function fanOut(stack: BenchStack): Promise<void> {
  const org = await createBenchOrg(stack.db, `bench fan-out ${Date.now()}`);
  await growTasks(stack.db, org, 10);
  const [taskId] = await someTasks(stack.db, org, 1);
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const tokenResponse = await fetch(`${stack.workerUrl}/v1/realtime/tokens`, { method: "POST", headers, body: JSON.stringify({ scopes: ["tasks.read"], ttlSeconds: 3600 }) });
  const { data } = (await tokenResponse.json()) as { data: { token: string } };
  const socketUrl = `${stack.realtimeUrl.replace(/^http/, "ws")}/parties/v1/${org.orgId}?token=${encodeURIComponent(data.token)}`;

  const sockets: WebSocket[] = [];
  /** title of a write -> arrival times, one per socket */
  const arrivals = new Map<string, number[]>();
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(socketUrl);
      const timer = setTimeout(() => reject(new Error("socket did not get ready in 30 s")), 30_000);
      socket.on("message", (raw) => {
        const at = performance.now();
        // 1000 sockets' messages are read one after another by this one process: the title is
        // picked out without parsing the whole event, so reading adds as little as possible.
        const text = String(raw);
        if (text.includes('"type":"ready"')) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const title = /"title":"(Fan-out \d+)"/.exec(text)?.[1];
        if (title) arrivals.get(title)?.push(at);
      });
      socket.on("error", reject);
      sockets.push(socket);
    });

  try {
    let n = 0;
    for (const size of SOCKETS) {
      progress.step(`fan-out: open ${size} sockets, ${PLAN.fanoutWrites} writes`);
      while (sockets.length < size) {
        const batch = Math.min(50, size - sockets.length);
        await Promise.all(Array.from({ length: batch }, open));
      }
      const latencies: number[] = [];
      const writes: number[] = [];
      let missing = 0;
      for (let i = 0; i < PLAN.fanoutWrites + 1; i++) {
        const title = `Fan-out ${++n}`;
        const seen: number[] = [];
        arrivals.set(title, seen);
        const t0 = performance.now();
        const response = await fetch(`${stack.workerUrl}/v1/tasks/${taskId}`, { method: "PATCH", headers, body: JSON.stringify({ title }) });
        if (!response.ok) throw new Error(`PATCH: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        const answered = performance.now() - t0;
        const deadline = performance.now() + 10_000;
        while (seen.length < size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
        arrivals.delete(title);
        if (i === 0) continue; // warm-up
        missing += size - seen.length;
        writes.push(answered);
        for (const at of seen) latencies.push(at - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
      const sorted = Float64Array.from(latencies).sort();
      const p50 = percentile(sorted, 50);
      const p99 = percentile(sorted, 99);
      const write50 = percentile(Float64Array.from(writes).sort(), 50);
      progress.done(`p50 ${ms(p50)} ms, p99 ${ms(p99)} ms (the write answered in p50 ${ms(write50)} ms)${missing ? `, ${missing} MISSED` : ""}`);
      rows.push({
        section: "5 fan-out",
        name: "PATCH /v1/tasks/:id sent → event on every socket",
        load: `${size} socket${size > 1 ? "s" : ""}`,
        p50,
        p99,
        note: `${latencies.length} deliveries${missing ? `, ${missing} missed` : ""}; the write's own answer p50 ${ms(write50)} ms${size === 1000 ? "; target p99 < 100 ms" : ""}`,
      });
    }
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// 6: webhooks

async function webhooks(stack: BenchStack): Promise<void> {
  progress.step(`webhooks: ${PLAN.webhookEvents} events from one room to a local receiver`);
  const org = await createBenchOrg(stack.db, `bench webhooks ${Date.now()}`);
  await growTasks(stack.db, org, 1);
  const [taskId] = await someTasks(stack.db, org, 1);
  const received: number[] = [];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received.push(performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as { port: number }).port;
  try {
    const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
    const created = await fetch(`${stack.workerUrl}/v1/webhooks`, { method: "POST", headers, body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ["task.*"] }) });
    if (created.status !== 201) throw new Error(`POST /v1/webhooks: ${created.status} ${await created.text()}`);
    const webhook = ((await created.json()) as { data: { id: string } }).data;
    // One test delivery: the room has the webhook and the path works end to end.
    await fetch(`${stack.workerUrl}/v1/webhooks/${webhook.id}/test`, { method: "POST", headers });
    await until(() => received.length >= 1, 30_000, "the test delivery did not arrive");
    received.length = 0;

    // The events, committed as the API would (Node-side, same statement), not yet published...
    const actor = { orgId: org.orgId };
    for (let i = 0; i < PLAN.webhookEvents; i++) await updateTask(stack.db, actor, taskId!, { title: `Webhook ${i}` }, null);
    const events: OpsEvent[] = await eventsAfter(stack.db, org.orgId, 0, PLAN.webhookEvents);
    // ...then published to the room in one request, as the sweep does after an outage: the room
    // delivers them all, and this measures from the publish to the last delivery.
    const t0 = performance.now();
    const response = await fetch(`${stack.realtimeUrl}/parties/v1/${org.orgId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.realtimeSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
    await until(() => received.length >= events.length, 120_000, `only ${received.length}/${events.length} deliveries arrived`);
    const seconds = (received.at(-1)! - t0) / 1000;
    const firstMs = received[0]! - t0;
    if (process.env.BENCH_DEBUG) {
      const buckets = new Map<number, number>();
      for (const at of received) buckets.set(Math.floor((at - t0) / 100), (buckets.get(Math.floor((at - t0) / 100)) ?? 0) + 1);
      console.error("deliveries per 100 ms bucket:", JSON.stringify([...buckets]));
      const { rows: d } = await stack.db.query("select count(*)::int as n, percentile_cont(0.5) within group (order by duration_ms) as p50 from webhook_deliveries where org_id = $1", [org.orgId]);
      console.error("recorded attempts:", d);
    }
    const rate = events.length / seconds;
    const detail = `first delivery ${ms(firstMs)} ms after the publish`;
    progress.done(`${int(rate)} deliveries/s (${events.length} in ${seconds.toFixed(1)} s); ${detail}`);
    rows.push({
      section: "6 webhooks",
      name: "room → local receiver (204), signed POSTs",
      load: `${events.length} events in one publish`,
      rps: rate,
      note: `deliveries/s: ${events.length} in ${seconds.toFixed(1)} s; ${detail}`,
    });
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

async function until(done: () => boolean, timeoutMs: number, message: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(message);
    await new Promise((r) => setTimeout(r, 5));
  }
}

// ---------------------------------------------------------------------------------------------
// Output

function report(stack: BenchStack, databaseVersion: string, plans: Plans | null): void {
  const database = stack.kind === "server" ? "postgres" : "pglite";
  const title =
    `opsroom bench (${quick ? "quick" : "full"}${only ? `, only ${only.join(", ")}` : ""}${label ? `, ${label}` : ""}), ` +
    `${stack.kind === "server" ? databaseVersion : "embedded PGlite (in memory)"}`;
  const machineLine =
    `${machine.cores} cores (${machine.cpu}), ${machine.memoryGiB} GiB, Node ${machine.node}; ` +
    `load average before ${machine.loadBefore}, after ${machine.loadAfter}; ${new Date().toISOString()}`;
  const header = "| section | measurement | load | req/s | p50 ms | p99 ms | notes |";
  const lines = rows.map((r) => `| ${r.section} | ${r.name} | ${r.load} | ${int(r.rps)} | ${ms(r.p50)} | ${ms(r.p99)} | ${r.note ?? ""} |`);
  const table = [header, "|---|---|---|--:|--:|--:|---|", ...lines].join("\n");
  const markdown = `# ${title}\n\n${machineLine}\n\n${table}\n`;
  const plansMarkdown =
    plans &&
    `# Query plans at ${GROWTH.at(-1)!.toLocaleString("en-US")} tasks (${title})\n\n` +
    `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) of the exact statements the growth calls send.\n\n` +
    `## GET /v1/tasks?projectId=…&status=todo,in_progress&limit=50\n\n\`\`\`\n${plans.list}\n\`\`\`\n\n` +
    `## The same, a page in the middle (cursor)\n\n\`\`\`\n${plans.deepPage}\n\`\`\`\n\n` +
    `## GET /v1/tasks?updatedSince=…&limit=50\n\n\`\`\`\n${plans.sync}\n\`\`\`\n\n` +
    `## POST /v1/tasks\n\n\`\`\`\n${plans.create}\n\`\`\`\n`;
  const directory = `${ROOT}bench/results`;
  mkdirSync(directory, { recursive: true });
  const name = `${database}${quick ? "-quick" : ""}${label ? `-${label}` : ""}`;
  writeFileSync(`${directory}/${name}.md`, markdown);
  if (plansMarkdown) writeFileSync(`${directory}/${name}.plans.md`, plansMarkdown);
  writeFileSync(
    `${directory}/${name}.json`,
    JSON.stringify({ title, quick, database: stack.kind === "server" ? databaseVersion : "PGlite", machine, plan: PLAN, rows, roundTrips: roundTripResults, plans }, null, 2) + "\n",
  );
  process.stdout.write(`\n${markdown}\nwritten: bench/results/${name}.md, ${name}.json${plansMarkdown ? `, ${name}.plans.md` : ""}\n`);
}
