import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { NEON_COLD_START } from "../../cli/lib/sql-endpoint/compute.ts";
import { startSqlEndpoint, type SqlEndpoint } from "../../cli/lib/sql-endpoint.ts";

// A suspended compute's wake (issue 45 row 10; cli/lib/sql-endpoint/compute.ts): Neon suspends a
// compute after 5 idle minutes and the next request waits "a few hundred milliseconds" while it
// starts; before, the local SQL endpoint's delay was the same for every request. Here its idle time
// is shortened to 300 ms, so a test can wait it out; what a request after idleness costs the API:
// bench/wake.ts (bench/results/README.md "The first call after idleness").

const IDLE_MS = 300;
const WAKE_MS = 400;
let endpoint: SqlEndpoint;
let connection: string;

beforeAll(async () => {
  const database = new URL(inject("databaseUrl"));
  connection = database.href;
  endpoint = await startSqlEndpoint({
    target: { host: database.hostname, port: Number(database.port || 5432) },
    coldStart: { idleMs: IDLE_MS, wakeMs: WAKE_MS },
  });
});
afterAll(() => endpoint?.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One statement, as the driver sends it; answers its status and how long it took. */
async function timed(body: string = JSON.stringify({ query: "select 1", params: [] })) {
  const t0 = performance.now();
  const response = await fetch(`http://${endpoint.address}/sql`, {
    method: "POST",
    headers: { "Neon-Connection-String": connection, "Neon-Raw-Text-Output": "true", "Neon-Array-Mode": "true" },
    body,
  });
  await response.text();
  return { status: response.status, ms: performance.now() - t0 };
}

it("Neon's defaults: suspended after 5 idle minutes, a wake of a few hundred milliseconds", () => {
  expect(NEON_COLD_START.idleMs).toBe(5 * 60_000);
  expect(NEON_COLD_START.wakeMs).toBeGreaterThanOrEqual(200);
  expect(NEON_COLD_START.wakeMs).toBeLessThan(1_000);
});

it("the first request after idleness waits for the wake; the next ones do not", async () => {
  await sleep(IDLE_MS + 100);
  const wakesBefore = endpoint.wakes();
  const first = await timed();
  const second = await timed();
  expect(first.status).toBe(200);
  expect(second.status).toBe(200);
  expect(first.ms).toBeGreaterThanOrEqual(WAKE_MS);
  // One wake, the first request's: a lower bound of time holds on any machine, counts do too.
  expect(endpoint.wakes()).toBe(wakesBefore + 1);
});

it("requests that come while it wakes wait for the same wake, once", async () => {
  await sleep(IDLE_MS + 100);
  const wakesBefore = endpoint.wakes();
  const answers = await Promise.all([timed(), timed(), timed()]);
  for (const answer of answers) expect(answer.ms).toBeGreaterThanOrEqual(WAKE_MS - 50);
  expect(endpoint.wakes()).toBe(wakesBefore + 1);
});

it("a request refused before it needs the compute wakes nothing", async () => {
  await sleep(IDLE_MS + 100);
  const wakesBefore = endpoint.wakes();
  const refused = await timed('{"query":"select $1","params":["\\ud800"]}');
  expect(refused.status).toBe(400);
  expect(endpoint.wakes()).toBe(wakesBefore);
});

it("setColdStart(false): never suspended", async () => {
  endpoint.setColdStart(false);
  await sleep(IDLE_MS + 100);
  const wakesBefore = endpoint.wakes();
  expect((await timed()).status).toBe(200);
  expect(endpoint.wakes()).toBe(wakesBefore);
});
