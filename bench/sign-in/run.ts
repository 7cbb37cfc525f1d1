import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startBenchStack } from "../lib/stack.ts";

// `npm run bench:sign-in`: the CPU a sign-in costs in workerd (docs/people.md "Passwords, and the Workers plan").
// CPU time is read from /proc for every workerd process this one started, before and after N
// requests made one at a time, so it is workerd's own CPU per request, whatever the wall clock
// does on a busy machine. Two parts, in one run:
//  1. the password hash alone, in a Worker that only hashes (hash-worker.ts): opsroom's PBKDF2,
//     better-auth's default scrypt, and a request that does nothing (the runtime's floor);
//  2. the opsroom Worker: a sign-in, a session check (GET /v1/settings/session), and a 404.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const TICKS_PER_SECOND = 100;

/** Every workerd process that descends from this one. */
function workerdProcesses(): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(Number(entry), stat.slice(stat.indexOf("(") + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name === "workerd" && descends(pid)).map(([pid]) => pid);
}

/** CPU seconds (user + system) of these processes so far. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // gone
    }
  }
  return ticks / TICKS_PER_SECOND;
}

interface Measured {
  call: string;
  count: number;
  cpuMsPerCall: number;
  wallMsMedian: number;
}

async function measure(call: string, count: number, send: () => Promise<Response>): Promise<Measured> {
  for (let i = 0; i < 3; i++) await (await send()).arrayBuffer();
  const pids = workerdProcesses();
  const walls: number[] = [];
  const before = cpuSeconds(pids);
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await send();
    await response.arrayBuffer();
    if (response.status >= 500) throw new Error(`${call}: ${response.status}`);
    walls.push(performance.now() - started);
  }
  const cpu = cpuSeconds(pids) - before;
  walls.sort((a, b) => a - b);
  return { call, count, cpuMsPerCall: (cpu * 1000) / count, wallMsMedian: walls[Math.floor(walls.length / 2)]! };
}

async function hashes(): Promise<Measured[]> {
  const { unstable_startWorker } = await import("wrangler");
  const worker = await unstable_startWorker({
    config: `${ROOT}bench/sign-in/wrangler.toml`,
    dev: { server: { hostname: "127.0.0.1", port: 0 }, inspector: false, watch: false, persist: false, logLevel: "none" },
  });
  try {
    const url = (await worker.url).origin;
    return [
      await measure("nothing (the floor)", 200, () => fetch(`${url}/`)),
      await measure("PBKDF2-SHA256, 100 000 iterations (opsroom)", 40, () => fetch(`${url}/pbkdf2`)),
      await measure("scrypt N=16384 r=16 (better-auth's default)", 40, () => fetch(`${url}/scrypt`)),
    ];
  } finally {
    await worker.dispose();
  }
}

async function signIns(): Promise<Measured[]> {
  const stack = await startBenchStack({ realtime: false });
  try {
    const origin = stack.workerUrl;
    const post = (path: string, body: unknown, cookie = "") =>
      fetch(`${origin}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", origin, cookie },
        body: JSON.stringify(body),
      });
    const email = "bench@example.test";
    const password = "correct horse battery staple";
    const signedUp = await post("/auth/sign-up/email", { email, password, name: "Bench" });
    if (signedUp.status !== 200) throw new Error(`sign-up: ${signedUp.status} ${await signedUp.text()}`);
    const cookie = signedUp.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    return [
      await measure("404 (no database)", 200, () => fetch(`${origin}/nowhere`)),
      await measure("GET /v1/settings/session (one statement)", 200, () => fetch(`${origin}/v1/settings/session`, { headers: { cookie } })),
      await measure("POST /auth/sign-in/email", 40, () => post("/auth/sign-in/email", { email, password })),
    ];
  } finally {
    await stack.close();
  }
}

const rows = [...(await hashes()), ...(await signIns())];
const floor = rows[0]!.cpuMsPerCall;
console.log("\n| request | n | workerd CPU, ms per request | x the floor | wall, median ms |\n|---|--:|--:|--:|--:|");
for (const row of rows) {
  console.log(
    `| ${row.call} | ${row.count} | ${row.cpuMsPerCall.toFixed(1)} | ${(row.cpuMsPerCall / floor).toFixed(1)} | ${row.wallMsMedian.toFixed(1)} |`,
  );
}
console.log(
  `\nCPU from /proc (${TICKS_PER_SECOND} ticks a second) of every workerd process this run started; the floor is the hash Worker answering "ok".`,
);
