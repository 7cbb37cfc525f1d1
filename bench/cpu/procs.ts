import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

// Processes, from /proc/<pid>/stat: their parent, name and user + system time (utime, stime; the
// process's own, all its threads, not its children's), in clock ticks. Linux only. The exact CPU
// time of a process, for measuring: cpu-clock.ts.

/** Clock ticks a second (`getconf CLK_TCK`, almost always 100). */
export const CLOCK_TICKS: number = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command's name (stat's comm: "node", "workerd", "esbuild", "postgres"). */
  name: string;
  /** utime + stime, in clock ticks. */
  ticks: number;
}

function parseStat(pid: number, stat: string): ProcessInfo {
  // comm may hold spaces and parentheses: the fields after it start after the last ")".
  const close = stat.lastIndexOf(")");
  const fields = stat.slice(close + 2).split(" ");
  // fields[0] is field 3 (state): ppid is field 4, utime 14, stime 15.
  return { pid, ppid: Number(fields[1]), name: stat.slice(stat.indexOf("(") + 1, close), ticks: Number(fields[11]) + Number(fields[12]) };
}

/** One process, or undefined when it is gone. */
export function readProcess(pid: number): ProcessInfo | undefined {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}

/** Every process of the machine, by pid. */
export function readAllProcesses(): Map<number, ProcessInfo> {
  const all = new Map<number, ProcessInfo>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) all.set(info.pid, info);
  }
  return all;
}

/** The process and everything below it (children, their children...). */
export function processTree(root: number, all: Map<number, ProcessInfo>): ProcessInfo[] {
  const children = new Map<number, ProcessInfo[]>();
  for (const info of all.values()) children.set(info.ppid, [...(children.get(info.ppid) ?? []), info]);
  const tree: ProcessInfo[] = [];
  const top = all.get(root);
  const queue = top ? [top] : [];
  while (queue.length) {
    const next = queue.shift()!;
    tree.push(next);
    queue.push(...(children.get(next.pid) ?? []));
  }
  return tree;
}

/** The command line, its arguments joined by spaces ("" when gone). */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "";
  }
}
