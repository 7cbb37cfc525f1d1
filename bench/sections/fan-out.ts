import WebSocket from "ws";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import { percentile } from "../lib/load.ts";
import { ms } from "../lib/table.ts";
import type { BenchRun } from "./context.ts";

// Section 5: realtime fan-out. From sending a PATCH to its event arriving on every socket of the
// organisation's room, with 1, 100 and 1000 sockets.

export const SOCKETS = [1, 100, 1000];
export const STEPS = SOCKETS.length;

export async function fanOut({ stack, plan, progress, rows }: BenchRun): Promise<void> {
  const org = await createBenchOrg(stack.db, `bench fan-out ${Date.now()}`);
  await growTasks(stack.db, org, 10);
  const [taskId] = await someTasks(stack.db, org, 1);
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const tokenResponse = await fetch(`${stack.workerUrl}/v1/realtime/tokens`, { method: "POST", headers, body: JSON.stringify({ scopes: ["tasks.read"], ttlSeconds: 900 }) });
  const { data } = (await tokenResponse.json()) as { data: { token: string } };
  const socketUrl = `${stack.realtimeUrl.replace(/^http/, "ws")}/parties/v1/${org.orgId}?token=${encodeURIComponent(data.token)}`;

  const sockets: WebSocket[] = [];
  /** title of a write -> arrival times, one per socket */
  const arrivals = new Map<string, number[]>();
  const open = () =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(socketUrl);
      const timer = setTimeout(() => reject(new Error("socket did not get ready in 30 s")), 30_000);
      socket.on("message", (raw) => {
        const at = performance.now();
        // 1000 sockets' messages are read one after another by this one process: the title is
        // picked out without parsing the whole event, so reading adds as little as possible.
        const text = String(raw);
        if (text.includes('"type":"ready"')) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const title = /"title":"(Fan-out \d+)"/.exec(text)?.[1];
        if (title) arrivals.get(title)?.push(at);
      });
      socket.on("error", reject);
      sockets.push(socket);
    });

  try {
    let n = 0;
    for (const size of SOCKETS) {
      progress.step(`fan-out: open ${size} sockets, ${plan.fanoutWrites} writes`);
      while (sockets.length < size) {
        const batch = Math.min(50, size - sockets.length);
        await Promise.all(Array.from({ length: batch }, open));
      }
      const latencies: number[] = [];
      const writes: number[] = [];
      let missing = 0;
      for (let i = 0; i < plan.fanoutWrites + 1; i++) {
        const title = `Fan-out ${++n}`;
        const seen: number[] = [];
        arrivals.set(title, seen);
        const t0 = performance.now();
        const response = await fetch(`${stack.workerUrl}/v1/tasks/${taskId}`, { method: "PATCH", headers, body: JSON.stringify({ title }) });
        if (!response.ok) throw new Error(`PATCH: ${response.status} ${await response.text()}`);
        await response.arrayBuffer();
        const answered = performance.now() - t0;
        const deadline = performance.now() + 10_000;
        while (seen.length < size && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
        arrivals.delete(title);
        if (i === 0) continue; // warm-up
        missing += size - seen.length;
        writes.push(answered);
        for (const at of seen) latencies.push(at - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
      const sorted = Float64Array.from(latencies).sort();
      const p50 = percentile(sorted, 50);
      const p99 = percentile(sorted, 99);
      const write50 = percentile(Float64Array.from(writes).sort(), 50);
      progress.done(`p50 ${ms(p50)} ms, p99 ${ms(p99)} ms (the write answered in p50 ${ms(write50)} ms)${missing ? `, ${missing} MISSED` : ""}`);
      rows.push({
        section: "5 fan-out",
        name: "PATCH /v1/tasks/:id sent → event on every socket",
        load: `${size} socket${size > 1 ? "s" : ""}`,
        p50,
        p99,
        note: `${latencies.length} deliveries${missing ? `, ${missing} missed` : ""}; the write's own answer p50 ${ms(write50)} ms${size === 1000 ? "; target p99 < 100 ms" : ""}`,
      });
    }
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}
