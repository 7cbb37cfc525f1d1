// One isolate for `npm run bench:memory` (bench/memory.ts starts it): the app in this Node process,
// run with --max-old-space-size=128 as a Worker isolate has 128 MB, sends `CONCURRENCY` large reads
// at once (GET /v1/tasks?limit=200, each page 4 MiB) and reads every answer, sampling the V8 heap
// meanwhile. Prints one line: `MEMORY {json}` with the statuses and the heap's peak. An isolate
// whose heap runs out dies here as it would on Cloudflare (then the parent sees no line).

import { getHeapStatistics } from "node:v8";
import { createApp } from "../functions/app.ts";
import { setLargeAnswersAtOnce } from "../functions/middleware/answer-budget.ts";
import { replayEnv, runCall } from "./lib/replay.ts";

const concurrency = Number(process.env.CONCURRENCY ?? 1);
// UNBOUNDED=1: the isolate without its budget, to see where the heap runs out.
if (process.env.UNBOUNDED === "1") setLargeAnswersAtOnce(Infinity);
const env = replayEnv({
  DATABASE_URL: process.env.DATABASE_URL,
  LOCAL_SQL_ENDPOINT: process.env.LOCAL_SQL_ENDPOINT,
  REALTIME_SECRET: "bench-secret-bench-secret",
  PUBLIC_ORIGIN: "http://api.bench.invalid",
});
const app = createApp();
const request = () =>
  new Request("http://api.bench.invalid/v1/tasks?limit=200", { headers: { authorization: `Bearer ${process.env.BENCH_KEY}` } });
const used = () => getHeapStatistics().used_heap_size;

// Once first, so that the app's modules are loaded and the baseline is the isolate at rest.
await runCall(app, env, request());
(globalThis as { gc?: () => void }).gc?.();
const baseline = used();
let peak = baseline;
const sampler = setInterval(() => (peak = Math.max(peak, used())), 1);
const statuses = await Promise.all(Array.from({ length: concurrency }, () => runCall(app, env, request())));
clearInterval(sampler);
peak = Math.max(peak, used());
console.log(
  `MEMORY ${JSON.stringify({ concurrency, unbounded: process.env.UNBOUNDED === "1", statuses, baselineMB: baseline / 2 ** 20, peakMB: peak / 2 ** 20, limitMB: getHeapStatistics().heap_size_limit / 2 ** 20 })}`,
);
