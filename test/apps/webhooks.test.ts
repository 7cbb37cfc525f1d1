import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { asPerson, fixturesOf, signUp, type Person } from "../helpers/people.ts";
import { useRoom } from "../helpers/realtime.ts";
import { taskBody } from "../helpers/resources.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook } from "../webhooks/helpers.ts";
import { registerApp, tokensFor } from "./helpers.ts";

// Webhooks an application registers with its access token (docs/apps.md "Webhooks"): its bodies
// carry the application as the actor and the person it acts for, `excludeOwn` leaves out the
// application's own writes, and uninstalling turns them off (kept, with the reason, for the
// organisation's admins to read): no delivery after it, checked by real receivers.

useRoom();

const SCOPES = "tasks.manage projects.read webhooks.manage";

/** A webhook of the person's (their session), whose deliveries show what the room has fanned out. */
async function personWebhook(person: Person, receiver: Receiver) {
  const created = expectSuccess(
    await asPerson(person.cookie, "/v1/webhooks", { body: { url: receiver.url, events: ["task.*"] } }),
    201,
  ).data;
  receiver.useSecret(created.secret);
  return created as { id: string };
}

describe("an application's webhooks", () => {
  it("deliver under the app's name and the person's; excludeOwn leaves out its own; uninstall turns them off and nothing is delivered after", async () => {
    const owner = await signUp({ name: "Katherine Johnson" });
    const app = await registerApp(owner, { scopes: ["tasks.manage", "projects.read", "webhooks.manage"] });
    const { access_token: token } = await tokensFor(app, owner, { overrides: { scope: SCOPES } });
    const [all, notOwn, sentinel] = [await startReceiver("app"), await startReceiver("app-not-own"), await startReceiver("person")];
    const hook = await registerWebhook(token, all, { events: ["task.*"] });
    expect(hook.scopes).toEqual(["projects.read", "tasks.read"]);
    const notOwnHook = await registerWebhook(token, notOwn, { events: ["task.*"], excludeOwn: true });
    await personWebhook(owner, sentinel);

    const org = fixturesOf(owner.orgId);
    const byApp = expectSuccess(await api("/v1/tasks", { key: token, body: await taskBody(org) }), 201).data;
    const byPerson = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
    const delivered = await all.waitFor((d) => [byApp.id, byPerson.id].every((id) => d.some((x) => x.event.data.id === id)), 20_000);
    const appDelivery = delivered.find((d) => d.event.data.id === byApp.id)!;
    expect(appDelivery.verified, appDelivery.verifyError).toBe(true);
    expect(appDelivery.event.actor).toEqual({
      type: "app",
      id: app.id,
      name: app.name,
      onBehalfOf: { type: "user", id: owner.userId, name: "Katherine Johnson" },
    });
    expect(delivered.find((d) => d.event.data.id === byPerson.id)!.event.actor).toEqual({
      type: "user",
      id: owner.userId,
      name: owner.name,
    });
    // Events are fanned out in changeVersion order: once the person's is delivered, the app's own was passed over.
    const others = await notOwn.waitFor((d) => d.some((x) => x.event.data.id === byPerson.id), 20_000);
    expect(others.map((d) => d.event.data.id)).toEqual([byPerson.id]);
    await sentinel.waitFor((d) => d.some((x) => x.event.data.id === byPerson.id), 20_000);

    const [{ id: installationId }] = (await query<{ id: string }>("select id from installations where application_id = $1", [app.id])) as [
      { id: string },
    ];
    expectSuccess(await asPerson(owner.cookie, `/v1/settings/installations/${installationId}`, { method: "DELETE" }));
    for (const id of [hook.id, notOwnHook.id]) {
      const after = expectSuccess(await asPerson(owner.cookie, `/v1/webhooks/${id}`)).data;
      expect(after).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/uninstalled/) });
    }
    expectError(await api("/v1/webhooks", { key: token, body: { url: all.url } }), 401, "invalid_key");

    // After the uninstall: the person's webhook receives the next change; the app's receive nothing more.
    const counts = [all.deliveries.length, notOwn.deliveries.length];
    const later = expectSuccess(await asPerson(owner.cookie, "/v1/tasks", { body: await taskBody(org) }), 201).data;
    await sentinel.waitFor((d) => d.some((x) => x.event.data.id === later.id), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect([all.deliveries.length, notOwn.deliveries.length]).toEqual(counts);
    const attempts = await query("select id from webhook_deliveries where webhook_id = any($1) and event_id = $2", [
      [hook.id, notOwnHook.id],
      (await query<{ id: string }>("select id from events where data->>'id' = $1", [later.id]))[0]!.id,
    ]);
    expect(attempts).toEqual([]);

    // An admin cannot turn them back on while the app is uninstalled (409, nothing changed, no
    // audit entry); once the app is installed again, they can.
    const before = expectSuccess(await asPerson(owner.cookie, `/v1/webhooks/${hook.id}`)).data;
    const entries = async () => (await query("select id from audit_entries where target->>'id' = $1", [hook.id])).length;
    const entriesBefore = await entries();
    const refused = expectError(
      await asPerson(owner.cookie, `/v1/webhooks/${hook.id}`, { method: "PATCH", body: { enabled: true } }),
      409,
      "conflict",
    );
    expect(refused.message).toMatch(/uninstalled/);
    expect(expectSuccess(await asPerson(owner.cookie, `/v1/webhooks/${hook.id}`)).data).toEqual(before);
    expect(await entries()).toBe(entriesBefore);
    await tokensFor(app, owner, { overrides: { scope: SCOPES } });
    const again = expectSuccess(await asPerson(owner.cookie, `/v1/webhooks/${hook.id}`, { method: "PATCH", body: { enabled: true } })).data;
    expect(again).toMatchObject({ enabled: true, disabledReason: null });
  });
});
