import { describe, expect, it } from "vitest";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, query, snapshot } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, taskBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { insertDelivery, registerWebhook, waitForLog } from "./helpers.ts";

// A webhook never shows an event outside the caller's scopes. A webhook carries the read scopes
// of the key that registered it; a key holding only webhooks.manage could otherwise aim it at
// itself (PATCH url) and receive, or redeliver, events it could never read. So changing, testing,
// redelivering and reading deliveries need every read scope the webhook carries (403 naming the
// first missing one, nothing changed); deleting needs webhooks.manage only.

useRoom();

/** A webhook registered by an all-scopes key: it sees every event, financial entries included. */
async function wideWebhook(tenant: Tenant) {
  const receiver = await startReceiver("wide");
  const webhook = await registerWebhook(tenant.key, receiver);
  expect(webhook.scopes).toEqual(["financials.read", "issues.read", "organisation.read", "projects.read", "risks.read", "tasks.read"]);
  return { receiver, webhook };
}

/** The first scope in the catalogue that the webhook carries and `held` lacks. */
const firstMissing = (webhookScopes: string[], held: Scope[]) => ALL_SCOPES.find((s) => webhookScopes.includes(s) && !held.includes(s));

describe("a key holding webhooks.manage but not the webhook's read scopes", () => {
  const narrow: Scope[] = ["webhooks.manage", "tasks.read"];

  it("cannot point it elsewhere: PATCH is 403 naming the first missing scope, and nothing changes", async () => {
    const tenant = await createTenant();
    const { receiver, webhook } = await wideWebhook(tenant);
    const manager = await tenant.keyWith(narrow);
    const attacker = await startReceiver("attacker");
    const before = await snapshot(tenant.org.id);
    const refused = await api(`/v1/webhooks/${webhook.id}`, { key: manager.key, method: "PATCH", body: { url: attacker.url } });
    expectError(refused, 403, "insufficient_scope", {
      scope: firstMissing(webhook.scopes, ["tasks.read", "webhooks.read", "webhooks.manage"]),
    });
    // A no-op PATCH (no field at all, or enabled as it is) is refused too: it would reveal the version.
    expectError(await api(`/v1/webhooks/${webhook.id}`, { key: manager.key, method: "PATCH", body: {} }), 403, "insufficient_scope");
    expectError(
      await api(`/v1/webhooks/${webhook.id}`, {
        key: manager.key,
        method: "PATCH",
        body: { enabled: true },
        headers: { "if-match": '"999"' },
      }),
      403,
      "insufficient_scope",
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
    expect(expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data.url).toBe(receiver.url);
  });

  it("cannot test it or redeliver to it: 403, and nothing is sent", async () => {
    const tenant = await createTenant();
    const { receiver, webhook } = await wideWebhook(tenant);
    const manager = await tenant.keyWith(narrow);
    const deliveryId = await insertDelivery(tenant, webhook.id);
    const before = await snapshot(tenant.org.id);
    expectError(await api(`/v1/webhooks/${webhook.id}/test`, { key: manager.key, method: "POST" }), 403, "insufficient_scope", {
      scope: "organisation.read",
    });
    expectError(
      await api(`/v1/webhooks/${webhook.id}/deliveries/${deliveryId}/redeliver`, { key: manager.key, method: "POST" }),
      403,
      "insufficient_scope",
      { scope: "organisation.read" },
    );
    expectNoTrace(before, await snapshot(tenant.org.id));
    // The sentinel: a test sent by a key that may, queued after the refused ones would have been.
    expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202);
    const log = await waitForLog(tenant.key, webhook.id, (l) => l.length >= 2);
    expect(log).toHaveLength(2); // the inserted delivery and the allowed test: nothing from the refused calls
    await receiver.waitForCount(1);
    expect(receiver.deliveries).toHaveLength(1);
  });

  it("cannot read its deliveries: 403 with webhooks.read alone, 200 once it holds the webhook's scopes", async () => {
    const tenant = await createTenant();
    const { webhook } = await wideWebhook(tenant);
    await insertDelivery(tenant, webhook.id);
    const reader = await tenant.keyWith(["webhooks.read", "tasks.read"]);
    expectError(await api(`/v1/webhooks/${webhook.id}/deliveries`, { key: reader.key }), 403, "insufficient_scope", {
      scope: "organisation.read",
    });
    const wideReader = await tenant.keyWith(["webhooks.read", ...ALL_SCOPES.filter((s) => s.endsWith(".read"))]);
    expect(expectSuccess(await api(`/v1/webhooks/${webhook.id}/deliveries`, { key: wideReader.key })).data).toHaveLength(1);
  });

  it("can still delete it: removing a webhook discloses nothing", async () => {
    const tenant = await createTenant();
    const { webhook } = await wideWebhook(tenant);
    const manager = await tenant.keyWith(["webhooks.manage"]);
    expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: manager.key, method: "DELETE" }));
    expectError(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key }), 404, "not_found");
  });

  it("an unknown webhook is still 404, not 403", async () => {
    const tenant = await createTenant();
    const manager = await tenant.keyWith(["webhooks.manage"]);
    const unknown = "01a00000-0000-7000-8000-000000000000";
    expectError(await api(`/v1/webhooks/${unknown}`, { key: manager.key, method: "PATCH", body: { enabled: false } }), 404, "not_found");
    expectError(await api(`/v1/webhooks/${unknown}/test`, { key: manager.key, method: "POST" }), 404, "not_found");
    expectError(await api(`/v1/webhooks/${unknown}/deliveries`, { key: manager.key }), 404, "not_found");
  });
});

describe("a key holding every scope the webhook carries", () => {
  it("changes, tests and reads a narrow webhook: a tasks-only webhook needs tasks.read, nothing more", async () => {
    const tenant = await createTenant();
    const registrar = await tenant.keyWith(["webhooks.manage", "tasks.read"]);
    const receiver = await startReceiver("narrow");
    const webhook = await registerWebhook(registrar.key, receiver);
    expect(webhook.scopes).toEqual(["tasks.read"]);
    const other = await tenant.keyWith(["webhooks.manage", "tasks.read"]);
    const changed = expectSuccess(
      await api(`/v1/webhooks/${webhook.id}`, { key: other.key, method: "PATCH", body: { description: "moved" } }),
    );
    expect(changed.data.description).toBe("moved");
    expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: other.key, method: "POST" }), 202);
    await receiver.waitForCount(1);
    const log = await waitForLog(other.key, webhook.id, (l) => l.length === 1);
    expect(log[0]).toMatchObject({ eventType: "webhook.test", outcome: "succeeded" });
  });
});

describe("webhooks belong to the organisation", () => {
  it("a webhook registered by a key later revoked keeps delivering, and names that key", async () => {
    const tenant = await createTenant();
    const registrar = await tenant.keyWith(["webhooks.manage", "tasks.read"]);
    const receiver = await startReceiver("orphan");
    const webhook = await registerWebhook(registrar.key, receiver);
    expect(expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data.createdByKeyId).toBe(registrar.id);
    await query("update api_keys set revoked_at = now() where id = $1", [registrar.id]);
    expectError(await api("/v1", { key: registrar.key }), 401, "invalid_key");
    const task = await created(tenant.key, "/v1/tasks", await taskBody(tenant));
    const [delivery] = await receiver.waitForCount(1);
    expect(delivery!.verified).toBe(true);
    expect(delivery!.event).toMatchObject({ type: "task.created", data: { id: task.id } });
    expect(expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data).toMatchObject({
      enabled: true,
      createdByKeyId: registrar.id,
    });
  });
});
