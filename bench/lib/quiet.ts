import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

// Waiting for a quiet machine before measuring CPU. A run that starts right after another (or
// after a burst of writes) shares the cores with what that left behind: Postgres's autovacuum and
// checkpointer, V8 still optimising, the previous processes' exit. On 2 cores that moved section
// 8's ratios by more than their margins, the app's larger code suffering more than the floors'.

/** The machine's busy and total CPU time so far, in ticks, from the first line of /proc/stat. */
function cpuTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the idle ones.
  const total = fields.slice(0, 8).reduce((sum, v) => sum + v, 0);
  return { busy: total - fields[3]! - fields[4]!, total };
}

/**
 * Waits until the machine's cores have been under `busyShare` busy for three one-second samples
 * in a row, or until `maxMs` has passed; answers how long it waited and the last sample's share.
 */
export async function waitForQuiet(busyShare = 0.15, maxMs = 180_000): Promise<{ waitedMs: number; busy: number; quiet: boolean }> {
  const started = performance.now();
  let quietSamples = 0;
  let busy = 1;
  while (performance.now() - started < maxMs) {
    const before = cpuTicks();
    await sleep(1_000);
    const after = cpuTicks();
    busy = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    quietSamples = busy < busyShare ? quietSamples + 1 : 0;
    if (quietSamples === 3) return { waitedMs: performance.now() - started, busy, quiet: true };
  }
  return { waitedMs: performance.now() - started, busy, quiet: false };
}
