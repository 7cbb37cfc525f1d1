import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { PRUNE_CRON, SWEEP_CRON } from "../../functions/sweep-plan.ts";
import { startSqlRecorder, type SqlRecorder } from "../helpers/sql-recorder.ts";
import { startTestWorker, type TestWorker } from "../helpers/worker.ts";

// An idle service lets Neon suspend its compute (issue 45 row 5; docs/deployment.md "Neon"). Neon
// suspends a compute after 5 minutes without a statement; the cron's sweep runs every minute, and
// before, each sent its statements whatever there was to do, so the compute never suspended
// (cost on a paid plan; on the Free plan its compute hours ran out, and every call then failed).
// A Worker of this file's own, its every statement counted at its SQL endpoint
// (test/helpers/sql-recorder.ts): its sweeps and prunes send none until it serves a request
// (functions/sweep-watch.ts). When they stop again (ACTIVE_MS after the last request, unless a
// sweep found work): test/unit/sweep-plan.test.ts.

let recorder: SqlRecorder;
let worker: TestWorker;

beforeAll(async () => {
  recorder = await startSqlRecorder(inject("databaseUrl"));
  worker = await startTestWorker(
    {
      DATABASE_URL: inject("databaseUrl"),
      LOCAL_SQL_ENDPOINT: `127.0.0.1:${recorder.port}`,
      REALTIME_URL: inject("realtimeUrl"),
      REALTIME_SECRET: inject("realtimeSecret"),
    },
    { testScheduled: true },
  );
}, 120_000);

afterAll(async () => {
  await worker?.dispose();
  await recorder?.close();
}, 60_000);

const run = async (cron: string) => {
  const response = await fetch(`${worker.url}/__scheduled?cron=${encodeURIComponent(cron)}`);
  expect(response.status).toBe(200);
  await response.text();
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const statementsSince = (start: number) => recorder.requests.slice(start).flatMap((r) => r.statements);

it("an idle service: ten minute sweeps and a prune send Neon no statement", { timeout: 60_000 }, async () => {
  const start = recorder.requests.length;
  for (let minute = 0; minute < 10; minute++) await run(SWEEP_CRON);
  await run(PRUNE_CRON);
  // They run after the scheduled handler answers (waitUntil): give them time to send anything.
  await sleep(3_000);
  expect(statementsSince(start)).toEqual([]);
});

it("a request wakes them: the next sweep and the prunes run", { timeout: 60_000 }, async () => {
  const start = recorder.requests.length;
  await (await fetch(`${worker.url}/v1`)).text();
  await run(SWEEP_CRON);
  await expect.poll(() => statementsSince(start).some((s) => /from "?events"?/.test(s)), { timeout: 20_000 }).toBe(true);
  await run(PRUNE_CRON);
  await expect.poll(() => statementsSince(start).some((s) => /delete from "?idempotency_keys/.test(s)), { timeout: 20_000 }).toBe(true);
});
