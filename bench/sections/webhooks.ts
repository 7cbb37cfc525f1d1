import { createServer } from "node:http";
import { eventsAfter } from "../../db/statements/engine/events.ts";
import { updateTask } from "../../db/statements/tasks.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { createBenchOrg, growTasks, someTasks } from "../lib/data.ts";
import { int, ms } from "../lib/table.ts";
import type { BenchRun } from "./context.ts";

// Section 6: webhooks. Deliveries per second from one room to a fast local receiver, the events
// handed to the room in one publish (as the sweep does after an outage).

export const STEPS = 1;

export async function webhooks({ stack, plan, progress, rows }: BenchRun): Promise<void> {
  progress.step(`webhooks: ${plan.webhookEvents} events from one room to a local receiver`);
  const org = await createBenchOrg(stack.db, `bench webhooks ${Date.now()}`);
  await growTasks(stack.db, org, 1);
  const [taskId] = await someTasks(stack.db, org, 1);
  const received: number[] = [];
  const receiver = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      received.push(performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as { port: number }).port;
  try {
    const headers = { authorization: `Bearer ${org.key}`, "content-type": "application/json" };
    const created = await fetch(`${stack.workerUrl}/v1/webhooks`, {
      method: "POST",
      headers,
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ["task.*"] }),
    });
    if (created.status !== 201) throw new Error(`POST /v1/webhooks: ${created.status} ${await created.text()}`);
    const webhook = ((await created.json()) as { data: { id: string } }).data;
    // One test delivery: the room has the webhook and the path works end to end.
    await fetch(`${stack.workerUrl}/v1/webhooks/${webhook.id}/test`, { method: "POST", headers });
    await until(() => received.length >= 1, 30_000, "the test delivery did not arrive");
    received.length = 0;

    // The events, committed as the API would (Node-side, same statement), not yet published...
    const actor = { orgId: org.orgId };
    for (let i = 0; i < plan.webhookEvents; i++) await updateTask(stack.db, actor, taskId!, { title: `Webhook ${i}` }, null);
    const events: OpsEvent[] = await eventsAfter(stack.db, org.orgId, 0, plan.webhookEvents);
    // ...then published to the room in one request, as the sweep does after an outage: the room
    // delivers them all, and this measures from the publish to the last delivery.
    const t0 = performance.now();
    const response = await fetch(`${stack.realtimeUrl}/parties/v1/${org.orgId}`, {
      method: "POST",
      headers: { authorization: `Bearer ${stack.realtimeSecret}`, "content-type": "application/json" },
      body: JSON.stringify({ events }),
    });
    if (!response.ok) throw new Error(`publish: ${response.status} ${await response.text()}`);
    await until(() => received.length >= events.length, 120_000, `only ${received.length}/${events.length} deliveries arrived`);
    const seconds = (received.at(-1)! - t0) / 1000;
    const detail = `first delivery ${ms(received[0]! - t0)} ms after the publish`;
    const rate = events.length / seconds;
    progress.done(`${int(rate)} deliveries/s (${events.length} in ${seconds.toFixed(1)} s); ${detail}`);
    rows.push({
      section: "6 webhooks",
      name: "room → local receiver (204), signed POSTs",
      load: `${events.length} events in one publish`,
      rps: rate,
      note: `deliveries/s: ${events.length} in ${seconds.toFixed(1)} s; ${detail}`,
    });
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  }
}

async function until(done: () => boolean, timeoutMs: number, message: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(message);
    await new Promise((r) => setTimeout(r, 5));
  }
}
