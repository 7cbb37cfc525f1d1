import { readdirSync, readFileSync } from "node:fs";

// The CPU a Worker spends, read from Linux's scheduler statistics: the nanoseconds every thread of
// every workerd process started under this test process has run on a CPU. Used to compare what
// two ways of making the same call cost the Worker, apart from the database (another process).

const parentOf = (pid: string): { ppid: string; name: string } | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The name is in parentheses and may hold spaces; the fields after it are space-separated.
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const ppid = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]!;
    return { ppid, name };
  } catch {
    return undefined; // gone meanwhile
  }
};

/** The workerd processes descended from this one. */
export function workerdProcesses(): string[] {
  const all = readdirSync("/proc").filter((entry) => /^\d+$/.test(entry));
  const info = new Map(all.map((pid) => [pid, parentOf(pid)]));
  const descends = (pid: string): boolean => {
    for (let at = info.get(pid)?.ppid; at && at !== "0"; at = info.get(at)?.ppid) if (at === String(process.pid)) return true;
    return false;
  };
  return all.filter((pid) => info.get(pid)?.name === "workerd" && descends(pid));
}

/** Nanoseconds the given processes' threads have run, all together. */
export function cpuNanoseconds(pids: string[]): number {
  let total = 0;
  for (const pid of pids) {
    for (const task of readdirSync(`/proc/${pid}/task`))
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  }
  return total;
}
