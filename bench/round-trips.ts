// Database round trips per API call, measured rather than estimated: the Worker runs twice, once
// through a bridge that holds every database message back by DELAY ms each way, once without.
// The added latency of a call divided by one round trip's delay (2 x DELAY) is its round trips.
// Usage: npx tsx bench/round-trips.ts   (embedded Postgres, or DATABASE_URL)
import { startEmbeddedPostgres } from "../cli/lib/embedded-postgres.ts";
import { startWsBridge } from "../cli/lib/ws-bridge.ts";
import { runMigrations } from "../db/migrate.ts";
import { connectNodeDatabase } from "../db/node-client.ts";
import { createApiKey, createOrganisation } from "../db/queries/admin.ts";
import { ALL_SCOPES } from "../functions/lib/scopes.ts";
import { unstable_startWorker } from "wrangler";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";
const DELAY_MS = 25;
const SAMPLES = 15;

const embedded = process.env.DATABASE_URL ? null : await startEmbeddedPostgres();
const databaseUrl = process.env.DATABASE_URL ?? embedded!.url;
await runMigrations(databaseUrl);
const target = new URL(databaseUrl);
const db = connectNodeDatabase(databaseUrl);
const org = await createOrganisation(db, { name: `round-trips ${Date.now()}` });
const { key } = await createApiKey(db, { orgId: org.id, application: "round-trips", scopes: ALL_SCOPES });

async function startStack(delayMs: number) {
  const bridge = await startWsBridge({ target: { host: target.hostname, port: Number(target.port || 5432) }, delayMs });
  const worker = await unstable_startWorker({
    config: "wrangler.toml",
    bindings: {
      DATABASE_URL: { type: "plain_text", value: databaseUrl },
      DB_WS_PROXY: { type: "plain_text", value: bridge.address },
      REALTIME_URL: { type: "plain_text", value: "" },
    },
    dev: { server: { port: 0 }, inspector: false, watch: false, logLevel: "none" },
  } as Parameters<typeof unstable_startWorker>[0]);
  const base = (await worker.url).origin;
  return { base, close: async () => (await worker.dispose(), await bridge.close()) };
}

async function call(base: string, method: string, path: string, body?: unknown) {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await response.json()) as { data: { id: string } };
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(base: string) {
  const project = await call(base, "POST", "/v1/projects", { name: "P", budget: 0, startDate: "2026-01-01", endDate: "2026-12-31" });
  const person = await call(base, "POST", "/v1/personnel", { name: "P", email: `p${Date.now()}${Math.random()}@example.com` });
  const task = await call(base, "POST", "/v1/tasks", { title: "T", projectId: project.data.id, assigneeId: person.data.id, dueDate: "2026-06-01" });
  const calls: [string, () => Promise<unknown>][] = [
    ["GET /v1", () => call(base, "GET", "/v1")],
    ["GET /v1/tasks?limit=50", () => call(base, "GET", "/v1/tasks?limit=50")],
    ["GET /v1/tasks/:id", () => call(base, "GET", `/v1/tasks/${task.data.id}`)],
    ["POST /v1/tasks", () => call(base, "POST", "/v1/tasks", { title: "T", projectId: project.data.id, assigneeId: person.data.id, dueDate: "2026-06-01" })],
    ["PATCH /v1/tasks/:id", () => call(base, "PATCH", `/v1/tasks/${task.data.id}`, { title: `T ${Math.random()}` })],
  ];
  const result: Record<string, number> = {};
  for (const [name, run] of calls) {
    await run();
    const times: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    result[name] = median(times);
  }
  return result;
}

const fast = await startStack(0);
const baseline = await measure(fast.base);
await fast.close();
const slow = await startStack(DELAY_MS);
const delayed = await measure(slow.base);
await slow.close();

console.log(`| call | p50 direct (ms) | p50 with ${DELAY_MS} ms each way (ms) | round trips |`);
console.log("|---|---|---|---|");
for (const name of Object.keys(baseline)) {
  const trips = (delayed[name]! - baseline[name]!) / (2 * DELAY_MS);
  console.log(`| ${name} | ${baseline[name]!.toFixed(1)} | ${delayed[name]!.toFixed(1)} | ${trips.toFixed(2)} |`);
}
await db.close();
await embedded?.stop();
