import { expect, it } from "vitest";
import { api } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { fakeEvent, postToRoom, useRoom } from "../helpers/realtime.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForLog } from "./helpers.ts";

// Deliveries per second from one room to a fast local receiver : events
// through one webhook, the receiver verifying every request. Measured twice: for the room alone
// (500 events handed to the room in one publish, to the last delivery) and end to end (writes
// through the API, 10 at a time, first write to last delivery: 100 in a normal run, which the
// writes themselves dominate; OPSROOM_BENCH=1 makes it 500). Printed, and quoted in README's
// Webhooks section. Loose bounds only: the machine is shared.

useRoom();

const EVENTS = 500;
const WRITES = process.env.OPSROOM_BENCH === "1" ? 500 : 100;

function expectAllOnce(receiver: Receiver, count: number) {
  expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
  expect(new Set(receiver.deliveries.map((d) => d.event.id)).size).toBe(count);
  expect(receiver.deliveries).toHaveLength(count);
}

const rate = (count: number, ms: number) => Math.round((count / ms) * 1000);

it(`${WRITES} task writes through one webhook: deliveries per second, end to end`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant({ rateLimit: 10_000 });
  const project = await tenant.insertProject();
  const person = await tenant.insertPerson();
  const receiver = await startReceiver();
  const webhook = await registerWebhook(tenant.key, receiver);

  const started = performance.now();
  let next = 0;
  const writer = async () => {
    while (next < WRITES) {
      const i = next++;
      const response = await api("/v1/tasks", {
        key: tenant.key,
        body: { projectId: project.id, assigneeId: person.id, title: `Throughput ${i}`, dueDate: "2026-06-30" },
      });
      expect(response.status).toBe(201);
    }
  };
  await Promise.all(Array.from({ length: 10 }, writer));
  const written = performance.now();
  await receiver.waitForCount(WRITES, 120_000);
  const first = receiver.deliveries[0]!.at;
  const last = receiver.deliveries.at(-1)!.at;
  expectAllOnce(receiver, WRITES);
  console.log(
    `[webhook throughput] ${WRITES} writes -> ${WRITES} verified deliveries: ${((last - started) / 1000).toFixed(1)} s first write to last delivery ` +
      `(${rate(WRITES, last - started)} events/s; the writes alone took ${((written - started) / 1000).toFixed(1)} s), ` +
      `first to last delivery ${((last - first) / 1000).toFixed(1)} s (${rate(WRITES, last - first)}/s)`,
  );
  // Every event has its successful attempt in the log (a retry after a dropped connection may add one).
  const log = await waitForLog(
    tenant.key,
    webhook.id,
    (l) => new Set(l.filter((d) => d.outcome === "succeeded").map((d) => d.eventId)).size >= WRITES,
    30_000,
  );
  expect(log.filter((d) => d.outcome === "failed")).toEqual([]);
});

it(`${EVENTS} events handed to the room at once: deliveries per second from the room alone`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  await registerWebhook(tenant.key, receiver);
  const events = Array.from({ length: EVENTS }, (_, i) => fakeEvent(tenant.org.id, i + 1));
  const started = performance.now();
  const published = await postToRoom(tenant.org.id, { events });
  expect(published.status).toBe(200);
  await receiver.waitForCount(EVENTS, 120_000);
  const last = receiver.deliveries.at(-1)!.at;
  expectAllOnce(receiver, EVENTS);
  console.log(
    `[webhook throughput] room alone: ${EVENTS} events in one publish -> ${EVENTS} verified deliveries in ${((last - started) / 1000).toFixed(1)} s ` +
      `(${rate(EVENTS, last - started)} events/s)`,
  );
  expect(rate(EVENTS, last - started)).toBeGreaterThan(5);
});
