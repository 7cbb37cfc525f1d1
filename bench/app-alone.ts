// `npm run bench:app [-- --only=list,patch] [-- --calls=2000] [-- --rounds=5] [-- --json]`: the Hono app's own CPU per call,
// without the runtime. The app's `fetch` is called in this Node process, one call at a time,
// against recorded answers: each call type runs once for real against a fresh database (through
// the local SQL endpoint, as in the Worker), every answer it received (the statement's, the room's
// acknowledgement, which the next write's statement records) is kept, and the measured calls get those answers
// back without leaving the process. What remains is what the Worker's isolate does per call:
// routing, middleware, validation, the key's hash, compiling the statement, reading its answer,
// the envelope, the log line, the after-commit publish. A regression here shows without the
// runtime's noise. `--profile=<dir>` writes a V8 CPU profile of each call type's measured rounds
// alone (no start-up, no recording) to <dir>/<call>.cpuprofile.
//
// Two stand-ins, both for what the runtime or another process does, not the app: the RateLimiter
// Durable Object answers "allowed" (its own cost is the room's workerd's, measured by the CPU
// section), and the room acknowledges every event it is sent.

import { mkdirSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { startSqlEndpoint } from "../cli/lib/sql-endpoint.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { createApp } from "../functions/app.ts";
import type { Bindings } from "../functions/env.ts";
import { countRequests, type CountingWindow } from "../functions/rate-limit/lease.ts";
import { createTestDatabase } from "../test/setup/test-database.ts";
import { createBenchOrg, growTasks, someTasks, type BenchOrg } from "./lib/data.ts";
import { median } from "./lib/load.ts";

interface Call {
  name: string;
  /** The API's target for the app alone, µs of CPU per call. */
  targetUs?: number;
  request(i: number): Request;
}

interface Answer {
  status: number;
  headers: [string, string][];
  body: string;
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const CALLS = Number(arg("calls") ?? 2000);
const ROUNDS = Number(arg("rounds") ?? 5);
const only = arg("only")?.split(",");
const profileDir = arg("profile");

const realFetch = globalThis.fetch;
const print = console.log;
/** Recording: the answers of the call in flight, in the order they came. Replaying: handed back in that order. */
let tape: Answer[] = [];
let mode: "record" | "replay" = "record";
let position = 0;

const ROOM = "http://room.bench.invalid";

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
  if (mode === "replay") {
    // What a runtime's native fetch hands back: the status and the body, read and parsed once (in
    // Node, undici's Request and Response with their web streams cost more than the app itself).
    const answer = tape[position++ % tape.length]!;
    return leanResponse(answer);
  }
  const request = new Request(input, init);
  let response: Response;
  if (request.url.startsWith(ROOM)) {
    // The room acknowledges every event it is sent (realtime/room.ts answers the same shape).
    const { events } = (await request.json()) as { events: { changeVersion: number }[] };
    response = Response.json({ acknowledged: events.map((e) => e.changeVersion) });
  } else {
    response = await realFetch(request);
  }
  const body = await response.text();
  tape.push({ status: response.status, headers: [...response.headers], body });
  return new Response(body, { status: response.status, headers: response.headers });
};

function leanResponse(answer: Answer): Response {
  const lean = {
    ok: answer.status >= 200 && answer.status < 300,
    status: answer.status,
    // Made only if read (nothing on the measured paths does): in Node a Headers costs more than the rest of this.
    get headers() {
      return new Headers(answer.headers);
    },
    text: async () => answer.body,
    json: async () => JSON.parse(answer.body) as unknown,
  };
  return lean as unknown as Response;
}

/** The RateLimiter's counting, in place of its Durable Object: it leases as the real one does, so calls are paid as in the Worker. */
const counted: CountingWindow = { start: 0, count: 0 };
const durableObjects = {
  idFromName: (name: string) => ({ name }),
  get: () => ({
    consume: async (_key: string, _address: string, cost = 1) => countRequests(counted, 1_000_000_000, cost, Date.now()),
    forget: async () => {},
    refused: async () => ({ blocked: false }),
  }),
};

/** The calls measured, from the cheapest (an unknown path) to a change. */
function callsOf(org: BenchOrg, taskId: string): Call[] {
  const auth = { authorization: `Bearer ${org.key}` };
  const json = { ...auth, "content-type": "application/json" };
  const base = "http://api.bench.invalid";
  return [
    { name: "unknown path (404)", request: () => new Request(`${base}/v1/nope`, { headers: auth }) },
    { name: "GET /v1", request: () => new Request(`${base}/v1`, { headers: auth }) },
    { name: "GET /v1/tasks/:id", request: () => new Request(`${base}/v1/tasks/${taskId}`, { headers: auth }) },
    { name: "GET /v1/tasks?limit=50", targetUs: 300, request: () => new Request(`${base}/v1/tasks?limit=50`, { headers: auth }) },
    {
      name: "POST /v1/tasks",
      targetUs: 500,
      request: (i) =>
        new Request(`${base}/v1/tasks`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            projectId: org.projects[0],
            assigneeId: org.people[0],
            dueDate: "2026-12-01",
            title: `App alone ${i}`,
            priority: "high",
          }),
        }),
    },
    {
      name: "PATCH /v1/tasks/:id",
      targetUs: 500,
      request: (i) =>
        new Request(`${base}/v1/tasks/${taskId}`, { method: "PATCH", headers: json, body: JSON.stringify({ title: `Renamed ${i}` }) }),
    },
  ];
}

interface Row {
  call: string;
  status: number;
  statements: number;
  median: number;
  min: number;
  target?: number;
}

/** One call: recorded once for real, then replayed CALLS times a round, its CPU time per call. */
async function measure(app: ReturnType<typeof createApp>, env: Bindings, call: Call): Promise<Row> {
  // Record: the call once for real (twice: the first warms the code paths and the key's row).
  let status = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    mode = "record";
    tape = [];
    status = await run(app, env, call.request(attempt));
  }
  const statements = tape.filter((a) => !a.body.includes('"acknowledged"')).length;
  mode = "replay";
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
  const database = await createTestDatabase(process.env.DATABASE_URL);
  await database.ready;
  const sqlEndpoint = await startSqlEndpoint({ target: database.target });
  const db = connectNodeDatabase(database.url, { max: 2 });
  try {
    const org = await createBenchOrg(db, "app alone");
    await growTasks(db, org, 200);
    const [taskId] = await someTasks(db, org, 1);
    const env = {
      DATABASE_URL: database.url,
      LOCAL_SQL_ENDPOINT: sqlEndpoint.address,
      REALTIME_URL: ROOM,
      REALTIME_SECRET: "bench-secret-bench-secret",
      RATE_LIMITER: durableObjects,
      AUTH_GUARD: durableObjects,
    } as unknown as Bindings;
    const app = createApp();
    const calls = callsOf(org, taskId!);
    const chosen = calls.filter((c) => !only || only.some((o) => c.name.toLowerCase().includes(o.toLowerCase())));
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
  } finally {
    globalThis.fetch = realFetch;
    await db.close();
    await sqlEndpoint.close();
    await database.dispose();
  }
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

/** One call; its deferred work (the publish) is awaited, as the runtime runs it before the isolate idles. */
async function run(app: ReturnType<typeof createApp>, env: Bindings, request: Request): Promise<number> {
  position = 0;
  const deferred: Promise<unknown>[] = [];
  const ctx = {
    waitUntil: (p: Promise<unknown>) => void deferred.push(p),
    passThroughOnException: () => {},
    props: {},
  } as unknown as ExecutionContext;
  const response = await app.fetch(request, env, ctx);
  await response.text();
  await Promise.all(deferred);
  return response.status;
}

await main();
