import { expect, it } from "vitest";
import { api, expectSuccess } from "../helpers/api.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { withRealtimeServer } from "../helpers/realtime.ts";
import { created, patched, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook, waitForAttempt } from "./helpers.ts";

// A webhook receives the events committed after it was registered or last turned on (docs/api.md
// §9). The room decides who receives an event when it fans the event out, which can come well
// after the commit: after a realtime outage, the sweep publishes what waited in the outbox. These
// stop the realtime server (the exclusive lease) so that an event waits while the webhook changes.

it("a webhook registered while an earlier event waited for the room does not receive it; the next one it does", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    await server.stop();
    await created(tenant.key, "/v1/projects", projectBody()); // event 1, left in the outbox
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await server.start();
    // Event 2 reaches the room, which fills the gap before it (event 1) from the API and fans out both.
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 2, 20_000);
    expect(receiver.deliveries.map((d) => d.event.changeVersion)).toEqual([2]);
  }),
);

it("a webhook turned off and on again does not receive what was committed while it was off", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const project = await created(tenant.key, "/v1/projects", projectBody()); // event 1: delivered
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 1, 20_000);
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: false } }));
    await server.stop();
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" }); // event 2: while it was off, left in the outbox
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: true } }));
    await server.start();
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "on_hold" }); // event 3: after it was on again
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 3, 20_000);
    expect(receiver.deliveries.map((d) => d.event.changeVersion)).toEqual([1, 3]);
  }),
);

it("turning on a webhook that is on already moves nothing: an event on its way to it still arrives", { timeout: 60_000 }, () =>
  withRealtimeServer(async (server) => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await server.stop();
    await created(tenant.key, "/v1/projects", projectBody()); // event 1, left in the outbox
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "PATCH", body: { enabled: true } }));
    await server.start();
    await created(tenant.key, "/v1/projects", projectBody());
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 2, 20_000);
    await waitForAttempt(tenant.key, webhook.id, (attempt) => attempt.changeVersion === 1, 20_000);
    expect(receiver.deliveries.map((d) => d.event.changeVersion).sort()).toEqual([1, 2]);
  }),
);
