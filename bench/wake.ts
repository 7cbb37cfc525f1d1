// `npx tsx bench/wake.ts [--rounds=9] [--idle-ms=1500]`: what the first call after idleness costs
// (issue 45 row 10). Neon suspends a compute after 5 idle minutes and the next connection waits
// while it wakes (cli/lib/sql-endpoint/compute.ts models it: NEON_COLD_START's wake). Here the
// SQL endpoint's idle time is shortened to --idle-ms so a round need not wait 5 minutes; its wake
// stays Neon's. Each round waits out the idle time, then times a call (the first after idleness)
// and the same call again at once (warm). Medians of the rounds, as ratios: the cold call to the
// warm one, and what it added as a share of the modelled wake (1.00: the wake, paid once).
// Embedded Postgres, or DATABASE_URL's server.
import { NEON_COLD_START } from "../cli/lib/sql-endpoint/compute.ts";
import { createBenchOrg } from "./lib/data.ts";
import { median } from "./lib/load.ts";
import { startBenchStack } from "./lib/stack.ts";

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const ROUNDS = Number(option("rounds") ?? 9);
const IDLE_MS = Number(option("idle-ms") ?? 1_500);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const stack = await startBenchStack({ realtime: false });
try {
  const org = await createBenchOrg(stack.db, `wake ${Date.now()}`);
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(stack.workerUrl + path, {
      method,
      headers: { authorization: `Bearer ${org.key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = (await response.json()) as { data: { id: string } };
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  };
  const project = await send("POST", "/v1/projects", { name: "P", budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" });
  const person = await send("POST", "/v1/personnel", { name: "P", email: `wake${Date.now()}@example.com` });
  const task = await send("POST", "/v1/tasks", { title: "T", projectId: project.id, assigneeId: person.id, dueDate: "2026-06-01" });
  let n = 0;
  const calls: [string, () => Promise<unknown>][] = [
    ["GET /v1/tasks/:id", () => send("GET", `/v1/tasks/${task.id}`)],
    ["GET /v1/tasks?limit=50", () => send("GET", "/v1/tasks?limit=50")],
    ["PATCH /v1/tasks/:id", () => send("PATCH", `/v1/tasks/${task.id}`, { title: `T ${++n}` })],
  ];
  const timeOne = async (run: () => Promise<unknown>) => {
    const t0 = performance.now();
    await run();
    return performance.now() - t0;
  };
  stack.sqlEndpoint.setColdStart({ idleMs: IDLE_MS, wakeMs: NEON_COLD_START.wakeMs });
  console.log(
    `wake modelled: ${NEON_COLD_START.wakeMs} ms after ${IDLE_MS} ms idle (Neon: 5 min); ${ROUNDS} rounds; ${stack.databaseLabel}`,
  );
  console.log("| call | cold p50 / warm p50 | (cold p50 - warm p50) / modelled wake | wakes |");
  console.log("|---|---|---|---|");
  for (const [name, run] of calls) {
    await run();
    const cold: number[] = [];
    const warm: number[] = [];
    const wakesBefore = stack.sqlEndpoint.wakes();
    for (let round = 0; round < ROUNDS; round++) {
      await sleep(IDLE_MS + 300);
      cold.push(await timeOne(run));
      warm.push(await timeOne(run));
    }
    const [c, w] = [median(cold), median(warm)];
    const wakes = stack.sqlEndpoint.wakes() - wakesBefore;
    console.log(`| ${name} | ${(c / w).toFixed(1)}x | ${((c - w) / NEON_COLD_START.wakeMs).toFixed(2)} | ${wakes} of ${ROUNDS} rounds |`);
  }
} finally {
  await stack.close();
}
