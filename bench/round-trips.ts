// Database round trips per API call, measured rather than estimated: every call is timed with the
// sqlEndpoint passing database traffic straight through, and with the SQL endpoint holding every database
// message (WebSocket frame, or SQL request and its answer) back by DELAY ms each way, alternately. The added
// latency of a call divided by one round trip's delay (2 x DELAY) is its round trips.
// Part of `npm run bench`; alone: npx tsx bench/round-trips.ts   (embedded Postgres, or DATABASE_URL)
import { fileURLToPath } from "node:url";
import type { SqlEndpoint } from "../cli/lib/sql-endpoint.ts";
import { median } from "./lib/load.ts";

export const DELAY_MS = 50;

export interface RoundTrips {
  call: string;
  directMs: number;
  delayedMs: number;
  roundTrips: number;
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as { data: { id: string } };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Round trips of GET /v1, the task calls, a sorted, searched and expanded list, a project with its progress, and a dependency; medians of `samples` calls each way. */
export async function measureRoundTrips(options: {
  base: string;
  key: string;
  sqlEndpoint: SqlEndpoint;
  samples: number;
  onCall?: (name: string) => void;
  onResult?: (result: RoundTrips) => void;
}): Promise<RoundTrips[]> {
  const { base, key, sqlEndpoint, samples } = options;
  const project = await call(base, key, "POST", "/v1/projects", { name: "P", budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" });
  const person = await call(base, key, "POST", "/v1/personnel", { name: "P", email: `p${Date.now()}${Math.random()}@example.com` });
  const newTask = { title: "T", projectId: project.data.id, assigneeId: person.data.id, dueDate: "2026-06-01" };
  const task = await call(base, key, "POST", "/v1/tasks", newTask);
  const blocker = await call(base, key, "POST", "/v1/tasks", newTask);
  let n = 0;
  const calls: [string, () => Promise<unknown>][] = [
    ["GET /v1", () => call(base, key, "GET", "/v1")],
    ["GET /v1/tasks?limit=50", () => call(base, key, "GET", "/v1/tasks?limit=50")],
    ["GET /v1/tasks/:id", () => call(base, key, "GET", `/v1/tasks/${task.data.id}`)],
    ["POST /v1/tasks", () => call(base, key, "POST", "/v1/tasks", newTask)],
    ["PATCH /v1/tasks/:id", () => call(base, key, "PATCH", `/v1/tasks/${task.data.id}`, { title: `T ${++n}` })],
    [
      "GET /v1/tasks?q=…&sort=-dueDate&expand=assignee,project,milestone",
      () => call(base, key, "GET", "/v1/tasks?q=t&sort=-dueDate&expand=assignee,project,milestone&limit=50"),
    ],
    ["GET /v1/projects/:id (with its progress)", () => call(base, key, "GET", `/v1/projects/${project.data.id}`)],
    // A dependency is checked after the organisation's write lock: two statements, one request.
    [
      "POST /v1/tasks/:id/dependencies",
      () => call(base, key, "POST", `/v1/tasks/${task.data.id}/dependencies`, { blockedBy: blocker.data.id }),
    ],
  ];
  const timeOne = async (run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    return performance.now() - t0;
  };
  const results: RoundTrips[] = [];
  try {
    for (const [name, run] of calls) {
      options.onCall?.(name);
      await run();
      // Direct and delayed samples alternate, so a change in the machine's load touches both alike.
      const direct: number[] = [];
      const delayed: number[] = [];
      for (let i = 0; i < samples; i++) {
        sqlEndpoint.setDelay(0);
        direct.push(await timeOne(run));
        sqlEndpoint.setDelay(DELAY_MS);
        delayed.push(await timeOne(run));
      }
      const directMs = median(direct);
      const delayedMs = median(delayed);
      results.push({ call: name, directMs, delayedMs, roundTrips: (delayedMs - directMs) / (2 * DELAY_MS) });
      options.onResult?.(results.at(-1)!);
    }
  } finally {
    sqlEndpoint.setDelay(0);
  }
  return results;
}

// Alone: start the stack, measure, print a Markdown table.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { startBenchStack } = await import("./lib/stack.ts");
  const { createBenchOrg } = await import("./lib/data.ts");
  const stack = await startBenchStack({ realtime: false });
  try {
    const org = await createBenchOrg(stack.db, `round-trips ${Date.now()}`);
    const results = await measureRoundTrips({ base: stack.workerUrl, key: org.key, sqlEndpoint: stack.sqlEndpoint, samples: 15 });
    console.log(`| call | p50 direct (ms) | p50 with ${DELAY_MS} ms each way (ms) | round trips |`);
    console.log("|---|---|---|---|");
    for (const r of results)
      console.log(`| ${r.call} | ${r.directMs.toFixed(1)} | ${r.delayedMs.toFixed(1)} | ${r.roundTrips.toFixed(2)} |`);
  } finally {
    await stack.close();
  }
}
