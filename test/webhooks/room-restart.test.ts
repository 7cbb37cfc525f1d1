import { expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectToRoom, fakeEvent, postToRoom, runSweep, withRealtimeServer } from "../helpers/realtime.ts";
import { created, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, retriesQueued, waitForAttempt, waitForLog, waitForLogged } from "./helpers.ts";

// Webhook jobs live in the room's storage ("Nothing queued is lost when the room
// restarts"), and events written while the room is down reach webhooks through the sweep. Stops
// the shared realtime server, so it holds the exclusive lease (no useRoom in this file).
//
// "Once" and "not to the deleted one" are checked after a sentinel delivery, never after a pause
// (see the top of ./helpers.ts).

it("a retry queued in the room is still made after the realtime server restarts", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    receiver.answerWith((n) => (n === 1 ? 500 : 200));
    const webhook = await registerWebhook(tenant.key, receiver);
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForLog(tenant.key, webhook.id, (l) => l.length === 1 && l[0]!.outcome === "retrying");

    // Down and up again before the retry is due (5 s after the first attempt). A deployed room's
    // alarm survives a restart; `partykit dev` forgets alarms, so the room re-arms when it next
    // wakes: here, as in development, when a client reconnects.
    await server.stop();
    await server.start();
    await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    const [first, second] = await receiver.waitForCount(2, 20_000);
    expect(second!.verified).toBe(true);
    expect(second!.event).toEqual(first!.event);
    await waitForLog(tenant.key, webhook.id, (l) => l.length === 2 && l[1]!.outcome === "succeeded" && l[1]!.attempt === 2);
  }),
);

it("1500 queued deliveries (one storage key each) are all made after the realtime server restarts", { timeout: 120_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await receiver.stop();
    const events = Array.from({ length: 1_500 }, (_, i) => fakeEvent(tenant.org.id, i + 1));
    expect((await postToRoom(tenant.org.id, { events })).body).toMatchObject({ watermark: 1_500 });

    // Down while the first attempts fail against the stopped receiver (or before they are made).
    await server.stop();
    await receiver.start();
    await server.start();
    await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    await receiver.waitForCount(1_500, 90_000);
    // The sentinel: one more event; once its attempt is in the log, every job queued before it has
    // been attempted, and with no retry left queued nothing more can come.
    const sentinel = fakeEvent(tenant.org.id, 1_501);
    expect((await postToRoom(tenant.org.id, { events: [sentinel] })).status).toBe(200);
    const attempts = await waitForLogged(tenant.org.id, webhook.id, (log) => log.some((a) => a.eventId === sentinel.id), 60_000);
    expect(retriesQueued(attempts), "events with a retry still queued").toEqual([]);
    expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual(
      [...events, sentinel].map((e) => e.changeVersion),
    );
  }),
);

it("an event written while the room is down reaches the webhook once the sweep publishes it", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await server.stop();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await server.start();
    const deadline = Date.now() + 30_000;
    while (receiver.deliveries.length === 0 && Date.now() < deadline) {
      await runSweep();
      await receiver.waitForCount(1, 1_000).catch(() => {});
    }
    // Once: the sentinel is the next change, made with the room up. The sweep publishes event 1
    // until the room's acknowledgement is recorded; a second delivery of it, from any publish
    // before the sentinel's, would be queued ahead of the sentinel.
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (d) => d.changeVersion === 2, 15_000);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual([1, 2]);
    expect(receiver.deliveries.find((d) => d.event.changeVersion === 1)).toMatchObject({
      verified: true,
      event: { type: "project.created", changeVersion: 1, data: { id: project.id } },
    });
  }),
);

it("webhooks registered or deleted while the room was down are honoured once it is back", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const before = await startReceiver("before");
    const during = await startReceiver("during");
    const old = await registerWebhook(tenant.key, before);
    await created(tenant.key, "/v1/projects", projectBody());
    await before.waitForCount(1);

    // The room cannot be told about these two changes.
    await server.stop();
    const added = await registerWebhook(tenant.key, during);
    expectSuccess(await api(`/v1/webhooks/${old.id}`, { key: tenant.key, method: "DELETE" }));
    await server.start();

    await created(tenant.key, "/v1/projects", projectBody());
    const [delivery] = await during.waitForCount(1, 15_000);
    expect(delivery).toMatchObject({ verified: true, event: { type: "project.created", changeVersion: 2 } });
    // The new webhook's attempt is the sentinel for the deleted one: had the room kept it, its job
    // for event 2 would have come from the same fan-out and gone out in the same drain.
    await waitForAttempt(tenant.key, added.id, (d) => d.changeVersion === 2);
    expect(before.deliveries).toHaveLength(1);
  }),
);
