// Files through the local stack (docs/attachments.md, issue 48): a 100 MiB file uploaded to a task
// (POST /v1/tasks/{id}/attachments, the body streamed into wrangler's local R2 through the size
// and SHA-256 check) and downloaded by its signed link, ROUNDS times; each one's wall time and
// throughput, the Worker's workerd CPU it took (its CPU clock, bench/cpu/cpu-clock.ts, less its CPU
// with no calls over the same time) per MiB, and the Worker isolate's own memory (its JavaScript heap
// and ArrayBuffers' backing stores, through its V8 inspector, test/helpers/isolate-heap.ts): the
// highest seen while it ran (sampled every 20 ms, garbage included) and what it holds after a
// garbage collection, each above its collected baseline (the file is streamed, never held whole).
// The workerd's resident memory is shown too, as information: the same process runs wrangler's
// local R2, so it cannot tell the Worker's bytes from the store's. The stack is the one
// the tests and `npm run dev` run (wrangler's dev server, local R2); random bytes, so nothing
// compresses. Medians; the machine is shared, so only figures of one run compare.
// Alone: npx tsx bench/files.ts [--mib=100] [--rounds=3]   (embedded Postgres, or DATABASE_URL)
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { roomsAt } from "../services/room-client.ts";
import { seedDemo } from "../services/seed/seed.ts";
import { connectIsolate, mibOf, type IsolateHeap } from "../test/helpers/isolate-heap.ts";
import { median } from "./lib/load.ts";
import { startBenchStack, type BenchStack } from "./lib/stack.ts";
import { idleRate, workerCpuMs, workerPid } from "./lib/worker-cpu.ts";

const argument = (name: string, fallback: number) =>
  Number(process.argv.find((arg) => arg.startsWith(`--${name}=`))?.split("=")[1] ?? fallback);
const MIB = argument("mib", 100);
const ROUNDS = argument("rounds", 3);
const BYTES = MIB * 1024 * 1024;

/** The workerd's resident set, in MiB. */
const rssMib = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;

interface Measured {
  seconds: number;
  cpuMs: number;
  /** The highest resident set while it ran, above the one before, in MiB. */
  rssRise: number;
  /** The isolate's highest heap + backing stores while it ran, above its collected baseline, in MiB. */
  isolatePeak: number;
  /** The isolate's heap + backing stores after a collection, above the baseline, in MiB. */
  isolateAfter: number;
}

/** Runs `work`, measuring its wall time, the Worker's CPU beyond idle, and the Worker's memory. */
async function measure(stack: BenchStack, isolate: IsolateHeap, idlePerMs: number, work: () => Promise<void>): Promise<Measured> {
  const pid = workerPid(stack);
  const baseline = mibOf(await isolate.collected());
  const isolateSampler = isolate.sample();
  const cpuMs = workerCpuMs(stack);
  const rssBefore = rssMib(pid);
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMib(pid))), 20);
  const [cpu0, t0] = [await cpuMs(), performance.now()];
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  const ms = performance.now() - t0;
  const cpu = (await cpuMs()) - cpu0 - idlePerMs * ms;
  const isolatePeak = (await isolateSampler.stop()).peak / 1024 / 1024 - baseline;
  const isolateAfter = mibOf(await isolate.collected()) - baseline;
  return { seconds: ms / 1000, cpuMs: cpu, rssRise: peak - rssBefore, isolatePeak, isolateAfter };
}

async function main() {
  const stack = await startBenchStack({ realtime: false, inspector: true });
  try {
    const seeded = await seedDemo({ db: stack.db, rooms: roomsAt(null) }, { tasks: 1 });
    const key = seeded.key.key;
    const call = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(stack.workerUrl + path, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
      const body = (await response.json()) as { data: { id: string; downloadUrl: string }[] & { id: string; downloadUrl: string } };
      if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      return body.data;
    };
    const [task] = await call("/v1/tasks?limit=1");
    const bytes = randomBytes(BYTES);
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const isolate = await connectIsolate(stack.inspectorUrl, stack.workerUrl);
    const idlePerMs = await idleRate(workerCpuMs(stack));
    const uploads: Measured[] = [];
    const downloads: Measured[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      let id = "";
      const query = new URLSearchParams({ name: `bench-${round}.bin`, size: String(BYTES), sha256 });
      uploads.push(
        await measure(stack, isolate, idlePerMs, async () => {
          id = (await call(`/v1/tasks/${task!.id}/attachments?${query}`, { method: "POST", body: bytes })).id;
        }),
      );
      const { downloadUrl } = await call(`/v1/tasks/${task!.id}/attachments/${id}`);
      const digest = createHash("sha256");
      let received = 0;
      downloads.push(
        await measure(stack, isolate, idlePerMs, async () => {
          const response = await fetch(downloadUrl);
          const reader = response.body!.getReader();
          for (let next = await reader.read(); !next.done; next = await reader.read()) {
            received += next.value.byteLength;
            digest.update(next.value);
          }
        }),
      );
      if (received !== BYTES || digest.digest("hex") !== sha256) throw new Error(`round ${round}: the download differs from the upload`);
      await call(`/v1/tasks/${task!.id}/attachments/${id}`, { method: "DELETE" });
    }
    console.log(`${stack.databaseLabel}; a ${MIB} MiB file of random bytes, ${ROUNDS} rounds, medians`);
    console.log(
      "| | wall (s) | MiB/s | Worker CPU (ms) | Worker CPU a MiB (ms) | isolate rise, peak (MiB) | isolate rise, collected after (MiB) | workerd RSS rise, peak (MiB) |",
    );
    console.log("|---|--:|--:|--:|--:|--:|--:|--:|");
    for (const [name, rows] of [
      ["upload", uploads],
      ["download", downloads],
    ] as const) {
      const wall = median(rows.map((r) => r.seconds));
      const cpu = median(rows.map((r) => r.cpuMs));
      const rss = Math.max(...rows.map((r) => r.rssRise));
      const isolatePeak = Math.max(...rows.map((r) => r.isolatePeak));
      const isolateAfter = Math.max(...rows.map((r) => r.isolateAfter));
      console.log(
        `| ${name} | ${wall.toFixed(2)} | ${(MIB / wall).toFixed(1)} | ${cpu.toFixed(0)} | ${(cpu / MIB).toFixed(2)} | ${isolatePeak.toFixed(1)} | ${isolateAfter.toFixed(1)} | ${rss.toFixed(1)} |`,
      );
    }
    isolate.close();
  } finally {
    await stack.close();
  }
}

await main();
