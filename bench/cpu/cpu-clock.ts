import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { CLOCK_TICKS, readProcess } from "./procs.ts";

// The CPU time of other processes, exactly. /proc/<pid>/stat gives utime + stime in clock ticks
// (10 ms): a batch of 400 calls read that way is ±0.025 ms a call, a seventh of what a hello-world
// Worker spends on one, so a 404's ratio to it moved by that much from one reading to the next.
// Linux keeps each process's CPU time to the nanosecond (sum_exec_runtime of every thread, living
// or ended: what utime + stime are scaled to) behind the process's CPU clock,
// clock_gettime(MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)) = ((~pid) << 3) | 2
// (include/linux/posix-timers.h). Node cannot name that clock; Python's time.clock_gettime_ns can.
// One Python process reads the clocks of the pids it is sent, a line at a time. Without python3,
// the ticks of /proc are read instead, and `exact` says so.

const READER = `
import sys, time
for line in sys.stdin:
    out = []
    for pid in line.split():
        try:
            out.append(str(time.clock_gettime_ns(((~int(pid)) << 3) | 2)))
        except OSError:
            out.append("-1")
    print(" ".join(out), flush=True)
`;

/** CPU ms by pid: a group of processes at one moment. */
export type CpuTimes = Map<number, number>;

let reader: { child: ChildProcessWithoutNullStreams; waiting: ((line: string) => void)[] } | null | undefined;

function startReader(): typeof reader {
  try {
    const child = spawn("python3", ["-u", "-c", READER], { stdio: ["pipe", "pipe", "pipe"] });
    const waiting: ((line: string) => void)[] = [];
    // The reader gone (no python3, a crash, a signal): every reading from then on is /proc's.
    const gone = () => {
      reader = null;
      for (const resolve of waiting.splice(0)) resolve("");
    };
    createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(line));
    child.on("error", gone);
    child.on("exit", gone);
    child.stdin.on("error", gone);
    // The reader keeps no process alive between readings: held only while one is awaited.
    hold(child, false);
    return { child, waiting };
  } catch {
    return null;
  }
}

/** Whether the reader's process and its pipes keep this process alive. */
function hold(child: ChildProcessWithoutNullStreams, held: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as unknown as { ref?: () => void; unref?: () => void }[])
    if (held) handle.ref?.();
    else handle.unref?.();
}

/** Whether the readings are exact (the processes' CPU clocks) rather than /proc's ticks. */
export const exact = () => Boolean(reader);

/** The CPU time, in ms, each of `pids` has spent so far; a process that is gone is left out. */
export async function cpuTimes(pids: number[]): Promise<CpuTimes> {
  if (reader === undefined) reader = startReader();
  const times: CpuTimes = new Map();
  if (pids.length === 0) return times;
  if (reader) {
    const { child, waiting } = reader;
    hold(child, true);
    const line = await new Promise<string>((resolve) => {
      waiting.push(resolve);
      child.stdin.write(`${pids.join(" ")}\n`);
    });
    if (waiting.length === 0) hold(child, false);
    const values = line === "" ? [] : line.split(" ").map(Number);
    if (values.length === pids.length && values.every(Number.isFinite)) {
      pids.forEach((pid, i) => values[i]! >= 0 && times.set(pid, values[i]! / 1e6));
      return times;
    }
    reader = null;
  }
  for (const pid of pids) {
    const p = readProcess(pid);
    if (p) times.set(pid, (p.ticks * 1000) / CLOCK_TICKS);
  }
  return times;
}

/**
 * The CPU a group of processes spent between two readings, in ms: a process in both counts its
 * difference; one that appeared in between counts all its time (it started in between); one
 * that ended in between is lost (counted in `lost`).
 */
export function spentMs(before: CpuTimes, after: CpuTimes): { ms: number; lost: number } {
  let ms = 0;
  let lost = 0;
  for (const [pid, t] of after) ms += t - (before.get(pid) ?? 0);
  for (const pid of before.keys()) if (!after.has(pid)) lost++;
  return { ms, lost };
}
