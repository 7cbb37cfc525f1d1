// `npm run bench:profile -- [task|list|patch|nope] [--calls=3000]`: a CPU profile of the Worker
// in workerd while calls run, taken through wrangler's DevTools inspector (Profiler domain), saved
// as bench/results/workerd-<call>.cpuprofile (open it in Chrome DevTools' Performance panel, or
// any .cpuprofile viewer). The inspector slows everything down, so read proportions, not times:
// bench/sections/cpu.ts measures the times, without it. A database of its own, the SQL endpoint,
// the room, and the Worker under cli/dev/worker-host.ts with --inspect (bench/lib/inspected-worker.ts).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { profilingStack, startInspectedWorker, type InspectedWorker } from "./lib/inspected-worker.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const call = process.argv.slice(2).find((a) => !a.startsWith("--")) ?? "task";
const CALLS = Number(process.argv.find((a) => a.startsWith("--calls="))?.slice("--calls=".length) ?? 3000);
const IN_FLIGHT = 8;

const { key, taskId, settings, close } = await profilingStack("profile", 200);
let worker: InspectedWorker | undefined;
try {
  worker = await startInspectedWorker(ROOT, settings);
  const { base } = worker;

  const headers = { authorization: `Bearer ${key}` };
  const requests: Record<string, (i: number) => [string, RequestInit]> = {
    task: () => [`${base}/v1/tasks/${taskId}`, { headers }],
    list: () => [`${base}/v1/tasks?limit=50`, { headers }],
    nope: () => [`${base}/v1/nope`, { headers }],
    patch: (i) => [
      `${base}/v1/tasks/${taskId}`,
      { method: "PATCH", headers: { ...headers, "content-type": "application/json" }, body: JSON.stringify({ title: `Profiled ${i}` }) },
    ],
  };
  const request = requests[call];
  if (!request) throw new Error(`unknown call ${call}: one of ${Object.keys(requests).join(", ")}`);
  const load = async (n: number) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (sent < n) {
          const [url, init] = request(sent++);
          await (await fetch(url, init)).text();
        }
      }),
    );
  };

  const send = worker.send;
  await load(500);
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: 100 });
  await send("Profiler.start");
  await load(CALLS);
  const { profile } = await send<{ profile: unknown }>("Profiler.stop");
  const out = join(ROOT, "bench", "results", `workerd-${call}.cpuprofile`);
  writeFileSync(out, JSON.stringify(profile));
  console.log(`${CALLS} × ${call} at ${IN_FLIGHT} in flight: ${out}`);
} finally {
  await worker?.stop();
  await close();
}
