import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectToRoom, fakeEvent, postToRoom, useRoom, type RoomEvent } from "../helpers/realtime.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, retriesQueued, stalledAndHealthy, waitForLogged } from "./helpers.ts";

// Bursts far larger than one Durable Object storage value (128 KiB): the room keeps what it has
// delivered but not yet queued for webhooks, what it holds behind a gap, and its copy of the
// webhooks, one storage key each, so a burst of any size reaches every socket and every webhook,
// each event once. (Kept in one value, a few hundred events made the publish fail and the
// webhooks miss them.)
//
// "Once" is checked after a sentinel, never after a pause: one more event, published once the
// burst has arrived, whose attempt in the delivery log means that every job queued before it has
// been attempted (see the top of ./helpers.ts), and no retry left queued: nothing more can come.

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

/**
 * Publishes `sentinel` (the next changeVersion) and waits until the webhook's log shows it
 * attempted; answers the webhook's attempts, having checked that none is left to retry.
 */
async function publishSentinel(orgId: string, webhookId: string, sentinel: RoomEvent, timeoutMs = 60_000) {
  expect((await postToRoom(orgId, { events: [sentinel] })).status).toBe(200);
  const attempts = await waitForLogged(orgId, webhookId, (log) => log.some((a) => a.eventId === sentinel.id), timeoutMs);
  expect(retriesQueued(attempts), "events with a retry still queued").toEqual([]);
  return attempts;
}

it(`${BURST} events in one publish reach the socket in order and the webhook, each once`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  const webhook = await registerWebhook(tenant.key, receiver);
  const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
  const events = range(1, BURST).map((cv) => fakeEvent(tenant.org.id, cv));
  expect(JSON.stringify(events).length).toBeGreaterThan(2 * 128 * 1024);

  const published = await postToRoom(tenant.org.id, { events });
  expect(published.status).toBe(200);
  expect(published.body).toMatchObject({ watermark: BURST });
  expect(published.body.acknowledged).toHaveLength(BURST);

  expectEachOnceInOrder(await socket.waitForEvents(BURST, 60_000), events);
  await receiver.waitForCount(BURST, 120_000);
  const sentinel = fakeEvent(tenant.org.id, BURST + 1);
  await publishSentinel(tenant.org.id, webhook.id, sentinel);
  expectDeliveredOnce(receiver, [...events, sentinel]);
  // The socket too: a repeat of the burst would have reached it before the sentinel.
  expectEachOnceInOrder(await socket.waitFor((received) => received.some((e) => e.id === sentinel.id)), [...events, sentinel]);
});

it(`${BURST} events held behind a gap go out, in order and once each, when the gap is filled`, { timeout: 180_000 }, async () => {
  const tenant = await createTenant();
  const receiver = await startReceiver();
  const webhook = await registerWebhook(tenant.key, receiver);
  const socket = await connectToRoom(tenant.org.id, { apiKey: tenant.key });
  const [first, ...rest] = range(1, BURST + 1).map((cv) => fakeEvent(tenant.org.id, cv));

  // Everything but the first: the API has nothing to fill the gap with, so the room holds them.
  const held = await postToRoom(tenant.org.id, { events: rest });
  expect(held.status).toBe(200);
  expect(held.body).toMatchObject({ watermark: 0 });

  // The first event is the sentinel of "nothing went out while they were held": the socket's
  // first event must be it (anything sent before it would have arrived first), and a webhook is
  // only ever given events the room has delivered, in that order.
  expect((await postToRoom(tenant.org.id, { events: [first] })).body).toMatchObject({ watermark: BURST + 1 });
  const all = [first!, ...rest];
  expectEachOnceInOrder(await socket.waitForEvents(BURST + 1, 60_000), all);
  await receiver.waitForCount(BURST + 1, 120_000);
  const sentinel = fakeEvent(tenant.org.id, BURST + 2);
  await publishSentinel(tenant.org.id, webhook.id, sentinel);
  expectDeliveredOnce(receiver, [...all, sentinel]);
  expectEachOnceInOrder(await socket.waitFor((received) => received.some((e) => e.id === sentinel.id)), [...all, sentinel]);
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
  // The sentinel: a second event, every webhook's attempt at it in the log. A repeat of the first
  // to any webhook would be ahead of it in that webhook's queue.
  const sentinel = fakeEvent(tenant.org.id, 2);
  expect((await postToRoom(tenant.org.id, { events: [sentinel] })).status).toBe(200);
  const attempts = await waitForLogged(
    tenant.org.id,
    undefined,
    (log) => new Set(log.filter((a) => a.eventId === sentinel.id).map((a) => a.webhookId)).size === 600,
    90_000,
  );
  expect(retriesQueued(attempts), "events with a retry still queued").toEqual([]);
  expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
  expect(receiver.deliveries.filter((d) => d.event.id === event.id)).toHaveLength(600);
  expect(receiver.deliveries.filter((d) => d.event.id === sentinel.id)).toHaveLength(600);
  expect(receiver.deliveries).toHaveLength(1_200);
});

it(
  `${BURST} events to a receiver that never answers and to a healthy one: the healthy one gets them all at its own pace`,
  { timeout: 120_000 },
  async () => {
    const tenant = await createTenant();
    const { healthy, stalled, healthyId, stalledId } = await stalledAndHealthy(tenant.key);
    const events = range(1, BURST).map((cv) => fakeEvent(tenant.org.id, cv));
    const started = performance.now();
    expect((await postToRoom(tenant.org.id, { events })).status).toBe(200);
    // Not in rounds paced by the stalled receiver's 10 s timeouts.
    await healthy.waitForCount(BURST, 15_000);
    console.log(`[webhook bursts] ${BURST} deliveries beside a stalled receiver in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    // The stalled webhook has had its part: removed, and its receiver closed (the requests it holds
    // fail at once), so the drains that follow, the sentinel's among them, do not each wait out its
    // 10 s timeouts.
    expectSuccess(await api(`/v1/webhooks/${stalledId}`, { key: tenant.key, method: "DELETE" }));
    await stalled.stop();
    const sentinel = fakeEvent(tenant.org.id, BURST + 1);
    await publishSentinel(tenant.org.id, healthyId, sentinel);
    expectDeliveredOnce(healthy, [...events, sentinel]);
  },
);
