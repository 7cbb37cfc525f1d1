import { expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { connectToRoom, fakeEvent, postToRoom, runSweep, withRealtimeServer } from "../helpers/realtime.ts";
import { created, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForLog } from "./helpers.ts";

// Webhook jobs live in the room's storage (issue 5: "Nothing queued is lost when the room
// restarts"), and events written while the room is down reach webhooks through the sweep. Stops
// the shared realtime server, so it holds the exclusive lease (no useRoom in this file).

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
    await registerWebhook(tenant.key, receiver);
    await receiver.stop();
    const events = Array.from({ length: 1_500 }, (_, i) => fakeEvent(tenant.org.id, i + 1));
    expect((await postToRoom(tenant.org.id, { events })).body).toMatchObject({ watermark: 1_500 });

    // Down while the first attempts fail against the stopped receiver (or before they are made).
    await server.stop();
    await receiver.start();
    await server.start();
    await connectToRoom(tenant.org.id, { apiKey: tenant.key });
    await receiver.waitForCount(1_500, 90_000);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(receiver.deliveries.filter((d) => !d.verified)).toEqual([]);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort((a, b) => a - b)).toEqual(events.map((e) => e.changeVersion));
  }),
);

it("an event written while the room is down reaches the webhook once the sweep publishes it", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    await registerWebhook(tenant.key, receiver);
    await server.stop();
    const project = await created(tenant.key, "/v1/projects", projectBody());
    await server.start();
    const deadline = Date.now() + 30_000;
    while (receiver.deliveries.length === 0 && Date.now() < deadline) {
      await runSweep();
      await receiver.waitForCount(1, 1_000).catch(() => {});
    }
    expect(receiver.deliveries).toHaveLength(1);
    expect(receiver.deliveries[0]).toMatchObject({ verified: true, event: { type: "project.created", changeVersion: 1, data: { id: project.id } } });
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
    await registerWebhook(tenant.key, during);
    expectSuccess(await api(`/v1/webhooks/${old.id}`, { key: tenant.key, method: "DELETE" }));
    await server.start();

    await created(tenant.key, "/v1/projects", projectBody());
    const [delivery] = await during.waitForCount(1, 15_000);
    expect(delivery).toMatchObject({ verified: true, event: { type: "project.created", changeVersion: 2 } });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(before.deliveries).toHaveLength(1);
  }),
);
