import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { uuidv7 } from "../../functions/lib/ids.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectToRoom, fakeEvent, postToRoom, useRoom, type RoomEvent } from "../helpers/realtime.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, settle, stalledAndHealthy } from "./helpers.ts";

// Bursts far larger than one Durable Object storage value (128 KiB): the room keeps what it has
// delivered but not yet queued for webhooks, what it holds behind a gap, and its copy of the
// webhooks, one storage key each, so a burst of any size reaches every socket and every webhook,
// each event once. (Kept in one value, a few hundred events made the publish fail and the
// webhooks miss them.)

useRoom();

const BURST = 1_500;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

function expectEachOnceInOrder(received: RoomEvent[], sent: RoomEvent[]) {
  expect(received.map((e) => e.changeVersion)).toEqual(sent.map((e) => e.changeVersion));
  expect(received.map((e) => e.id)).toEqual(sent.map((e) => e.id));
}

function expectDeliveredOnce(receiver: Receiver, sent: RoomEvent[]) {
  expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
  const ids = receiver.deliveries.map((d) => d.event.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(new Set(ids)).toEqual(new Set(sent.map((e) => e.id)));
}

it(`${BURST} events in one publish reach the socket in order and the webhook, each once`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  await registerWebhook(tenant.key, receiver);
  const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
  const events = range(1, BURST).map((cv) => fakeEvent(tenant.org.id, cv));
  expect(JSON.stringify(events).length).toBeGreaterThan(2 * 128 * 1024);

  const published = await postToRoom(tenant.org.id, { events });
  expect(published.status).toBe(200);
  expect(published.body).toMatchObject({ watermark: BURST });
  expect(published.body.acknowledged).toHaveLength(BURST);

  expectEachOnceInOrder(await socket.waitForEvents(BURST, 60_000), events);
  await receiver.waitForCount(BURST, 120_000);
  await settle(1_000);
  expectDeliveredOnce(receiver, events);
  expect(socket.events()).toHaveLength(BURST);
});

it(`${BURST} events held behind a gap go out, in order and once each, when the gap is filled`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  await registerWebhook(tenant.key, receiver);
  const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
  const [first, ...rest] = range(1, BURST + 1).map((cv) => fakeEvent(tenant.org.id, cv));

  // Everything but the first: the API has nothing to fill the gap with, so the room holds them.
  const held = await postToRoom(tenant.org.id, { events: rest });
  expect(held.status).toBe(200);
  expect(held.body).toMatchObject({ watermark: 0 });
  await settle(1_000);
  expect(socket.events()).toEqual([]);
  expect(receiver.deliveries).toEqual([]);

  expect((await postToRoom(tenant.org.id, { events: [first] })).body).toMatchObject({ watermark: BURST + 1 });
  const all = [first!, ...rest];
  expectEachOnceInOrder(await socket.waitForEvents(BURST + 1, 60_000), all);
  await receiver.waitForCount(BURST + 1, 120_000);
  await settle(1_000);
  expectDeliveredOnce(receiver, all);
  expect(socket.events()).toHaveLength(BURST + 1);
});

it("an organisation with 600 webhooks: one event reaches every one of them", { timeout: 120_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  // Straight into the database (600 API calls would only slow the test): one secret for all, so
  // the one receiver verifies every request; the room loads them when it first needs them.
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  receiver.useSecret(secret);
  const ids = Array.from({ length: 600 }, () => uuidv7());
  await query(
    `insert into webhooks (id, org_id, scopes, url, description, secret)
     select id, $2, '{tasks.read}', $3 || '?webhook=' || id, repeat('A webhook with a long description. ', 10), $4 from unnest($1::uuid[]) as id`,
    [ids, tenant.org.id, receiver.url, secret],
  );
  const event = fakeEvent(tenant.org.id, 1);
  expect((await postToRoom(tenant.org.id, { events: [event] })).status).toBe(200);
  await receiver.waitForCount(600, 90_000);
  await settle(1_000);
  expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
  expect(receiver.deliveries.every((d) => d.event.id === event.id)).toBe(true);
  expect(receiver.deliveries).toHaveLength(600);
});

it(`${BURST} events to a receiver that never answers and to a healthy one: the healthy one gets them all at its own pace`, { timeout: 120_000 }, async () => {
  const tenant = await createTenant();
  const { healthy } = await stalledAndHealthy(tenant.key);
  const events = range(1, BURST).map((cv) => fakeEvent(tenant.org.id, cv));
  const started = performance.now();
  expect((await postToRoom(tenant.org.id, { events })).status).toBe(200);
  // Not in rounds paced by the stalled receiver's 10 s timeouts.
  await healthy.waitForCount(BURST, 15_000);
  console.log(`[webhook bursts] ${BURST} deliveries beside a stalled receiver in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await settle(1_000);
  expectDeliveredOnce(healthy, events);
});
