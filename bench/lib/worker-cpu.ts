import { cpuTimes } from "../cpu/cpu-clock.ts";
import { ownsPort } from "../cpu/processes.ts";
import { readAllProcesses, processTree } from "../cpu/procs.ts";
import type { BenchStack } from "./stack.ts";

// The Worker's own workerd in a bench stack (not wrangler's proxy, which owns the port): its CPU
// time from its CPU clock (../cpu/cpu-clock.ts), and its CPU with no calls, to take off a batch's.

/** The pid of the stack's Worker's workerd. */
export function workerPid(stack: BenchStack): number {
  const port = Number(new URL(stack.workerUrl).port);
  const workerds = processTree(process.pid, readAllProcesses()).filter((p) => p.name === "workerd");
  const worker = workerds.find((p) => !ownsPort(p.pid, port));
  if (!worker) throw new Error("the Worker's workerd was not found");
  return worker.pid;
}

/** The Worker's workerd CPU time now, in ms. */
export function workerCpuMs(stack: BenchStack): () => Promise<number> {
  const pid = workerPid(stack);
  return async () => (await cpuTimes([pid])).get(pid) ?? 0;
}

/** ms of CPU the Worker spends a ms with no calls (over `ms`). */
export async function idleRate(cpuMs: () => Promise<number>, ms = 3000): Promise<number> {
  const [cpu0, t0] = [await cpuMs(), performance.now()];
  await new Promise((resolve) => setTimeout(resolve, ms));
  return ((await cpuMs()) - cpu0) / (performance.now() - t0);
}
