import { randomUUID } from "node:crypto";
import WebSocket from "ws";
import { eventsAfter } from "../../db/statements/engine/events.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import { percentile } from "../lib/load.ts";
import { int, ms } from "../lib/table.ts";
import type { BenchRun } from "./context.ts";

// Section 5: realtime fan-out. From sending a PATCH to its event arriving on every socket of the
// organisation's room, with 1, 100 and 1000 sockets; then how many events a second the room
// delivers to the 1000 sockets when they come one publish each, as many writers' Workers publish
// them, enough in flight that the room is never idle, until every socket has every event.

export const SOCKETS = [1, 100, 1000];
export const STEPS = SOCKETS.length + 1;
/** Publishes in flight in the sustained step: enough to keep the room busy (at 8, the rate followed the acknowledgements' latency). */
const IN_FLIGHT = 32;

// 1000 sockets' messages are read one after another by this one process, so reading must add as
// little as possible: no UTF-8 check, no string of the whole message, no JSON.parse; the write's
// title is picked out of the bytes. (Measured apart, ws costs about 5 µs of CPU a message here, and
// a bare TCP frame reader no less: the kernel's read per socket is most of it.)
const READY = Buffer.from('{"type":"ready"');
const TITLE = Buffer.from('"title":"');

/** The room's socket address with a realtime token for tasks.read, as a browser would join it. */
async function roomUrl(stack: BenchRun["stack"], orgId: string, headers: Record<string, string>): Promise<string> {
  const tokenResponse = await fetch(`${stack.workerUrl}/v1/realtime/tokens`, {
    method: "POST",
    headers,
    body: JSON.stringify({ scopes: ["tasks.read"], ttlSeconds: 900 }),
  });
  const { data } = (await tokenResponse.json()) as { data: { token: string } };
  return `${stack.realtimeUrl.replace(/^http/, "ws")}/parties/v1/${orgId}?token=${encodeURIComponent(data.token)}`;
}

/** Opens one more socket, ready when the room says so; each write's arrivals are recorded by its title. */
function socketOpener(socketUrl: string, sockets: WebSocket[], arrivals: Map<string, number[]>) {
  return () =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(socketUrl, { perMessageDeflate: false, skipUTF8Validation: true });
      const timer = setTimeout(() => reject(new Error("socket did not get ready in 30 s")), 30_000);
      socket.on("message", (raw: Buffer) => {
        const at = performance.now();
        if (raw.subarray(0, READY.length).equals(READY)) {
          clearTimeout(timer);
          resolve();
          return;
        }
        const start = raw.indexOf(TITLE);
        if (start < 0) return;
        const end = raw.indexOf(0x22, start + TITLE.length);
        arrivals.get(raw.toString("latin1", start + TITLE.length, end))?.push(at);
      });
      socket.on("error", reject);
      sockets.push(socket);
    });
}

export async function fanOut({ stack, plan, progress, rows }: BenchRun): Promise<void> {
  const org = await createBenchOrg(stack.db, `bench fan-out ${Date.now()}`);
  await growTasks(stack.db, org, 10);
  const [taskId] = await someTasks(stack.db, org, 1);
  const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
  const socketUrl = await roomUrl(stack, org.orgId, headers);

  const sockets: WebSocket[] = [];
  /** title of a write -> arrival times, one per socket */
  const arrivals = new Map<string, number[]>();
  const open = socketOpener(socketUrl, sockets, arrivals);

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
        const response = await fetch(`${stack.workerUrl}/v1/tasks/${taskId}`, {
          method: "PATCH",
          headers,
          body: JSON.stringify({ title }),
        });
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
      progress.done(
        `p50 ${ms(p50)} ms, p99 ${ms(p99)} ms (the write answered in p50 ${ms(write50)} ms)${missing ? `, ${missing} MISSED` : ""}`,
      );
      rows.push({
        section: "5 fan-out",
        name: "PATCH /v1/tasks/:id sent → event on every socket",
        load: `${size} socket${size > 1 ? "s" : ""}`,
        p50,
        p99,
        note: `${latencies.length} deliveries${missing ? `, ${missing} missed` : ""}; the write's own answer p50 ${ms(write50)} ms${size === SOCKETS.at(-1) ? "; target p99 < 50 ms" : ""}`,
      });
    }
    await sustained({ run: { stack, plan, progress, rows }, orgId: org.orgId, sockets: sockets.length, arrivals });
  } finally {
    for (const socket of sockets) socket.terminate();
  }
}

/**
 * Events a second one room delivers to all its sockets, each event published in a request of its
 * own, as the Worker does after each write, IN_FLIGHT at a time; from the first publish to the last
 * socket's last event. The events are copies of the last PATCH's event (same shape and size, the
 * next changeVersions, titles of their own) and are not in the database: all in it, the first one
 * to arrive out of order would make the room fetch every later one from the API at once (its gap
 * fill), and that would be measured instead of the publishes.
 */
async function sustained(options: { run: BenchRun; orgId: string; sockets: number; arrivals: Map<string, number[]> }): Promise<void> {
  const { run, orgId, sockets, arrivals } = options;
  const count = run.plan.quick ? 100 : 500;
  run.progress.step(`fan-out: ${count} events to ${sockets} sockets, one publish each, ${IN_FLIGHT} in flight`);
  const { rows } = await run.stack.db.query<{ cv: string }>("select change_version::text as cv from organisations where id = $1", [orgId]);
  const after = Number(rows[0]!.cv);
  const [template] = await eventsAfter(run.stack.db, orgId, after - 1, 1);
  const events: OpsEvent[] = Array.from({ length: count }, (_, i) => ({
    ...template!,
    id: randomUUID(),
    changeVersion: after + 1 + i,
    occurredAt: new Date().toISOString(),
    data: { ...template!.data, title: `Burst ${i}` },
  }));
  const seen = events.map((event) => {
    const arrived: number[] = [];
    arrivals.set(event.data.title as string, arrived);
    return arrived;
  });
  const acks: number[] = [];
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < events.length) {
        const event = events[next++]!;
        const sent = performance.now();
        await publish(run, orgId, event);
        acks.push(performance.now() - sent);
      }
    }),
  );
  const deadline = performance.now() + 60_000;
  while (seen.some((s) => s.length < sockets) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const missing = seen.reduce((sum, s) => sum + sockets - s.length, 0);
  const last = Math.max(...seen.flatMap((s) => (s.length ? [Math.max(...s)] : [])));
  const seconds = (last - t0) / 1000;
  const rate = events.length / seconds;
  const acked = Float64Array.from(acks).sort();
  run.progress.done(
    `${int(rate)} events/s (${int(rate * sockets)} messages/s), publish acknowledged p50 ${ms(percentile(acked, 50))} ms${missing ? `, ${missing} MISSED` : ""}`,
  );
  run.rows.push({
    section: "5 fan-out",
    name: `events published to the room, ${IN_FLIGHT} in flight → on every socket`,
    load: `${events.length} events, ${sockets} sockets`,
    rps: rate,
    p50: percentile(acked, 50),
    p99: percentile(acked, 99),
    note: `events/s until the last socket had the last event (${int(rate * sockets)} messages/s, ${seconds.toFixed(1)} s); p50/p99: publish to acknowledgement${missing ? `; ${missing} missed` : ""}`,
  });
  for (const event of events) arrivals.delete(event.data.title as string);
}

/**
 * One event to the room, as the Worker publishes it. A kept-alive connection the room's server has
 * just closed fails before the room reads anything: sent again, as the sweep would (a repeat is
 * dropped by the room).
 */
async function publish(run: BenchRun, orgId: string, event: OpsEvent): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(`${run.stack.realtimeUrl}/parties/v1/${orgId}`, {
        method: "POST",
        headers: { authorization: `Bearer ${run.stack.realtimeSecret}`, "content-type": "application/json" },
        body: JSON.stringify({ events: [event] }),
      });
      if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      return;
    } catch (error) {
      if (attempt === 3 || !(error instanceof TypeError)) throw error;
    }
  }
}
