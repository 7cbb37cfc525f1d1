import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { auditRows, expectFromThisRequest, expectOneEntry, writerOf } from "../helpers/audit.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { registerWebhook } from "../webhooks/helpers.ts";

// Webhooks in the audit log: created, changed (URL, filter), turned on and off, secret rotated,
// deleted, replayed. A URL is recorded by its origin only (its path may hold the receiver's
// secret), and the signing secret never.

useRoom();

const keyActor = (tenant: { keyId: string; application: string }) => ({ type: "key", id: tenant.keyId, name: tenant.application });
const patch = (key: string, id: string, body: unknown) => api(`/v1/webhooks/${id}`, { key, method: "PATCH", body });

describe("audit: webhooks", () => {
  it("created: by the key, its origin, filter and scopes; never the secret nor the URL's path", async () => {
    const tenant = await createTenant({ scopes: ["webhooks.manage", "tasks.read"] });
    const receiver = await startReceiver();
    let webhook: Awaited<ReturnType<typeof registerWebhook>> | undefined;
    const entry = await expectOneEntry(tenant.org.id, "webhook.created", async () => {
      webhook = await registerWebhook(tenant.key, receiver, { events: ["task.*"] });
    });
    const origin = new URL(receiver.url).origin;
    expect(entry.actor).toEqual(keyActor(tenant));
    expect(entry.target).toEqual({ type: "webhook", id: webhook!.id, name: origin });
    expect(entry.changes).toMatchObject({
      url: { from: null, to: origin },
      events: { from: null, to: ["task.*"] },
      scopes: { from: null, to: ["tasks.read"] },
    });
    expect(JSON.stringify(entry)).not.toContain(webhook!.secret);
    expect(JSON.stringify(entry)).not.toContain(new URL(receiver.url).pathname);
    expectFromThisRequest(entry);
    expect(entry.xmin).toBe(await writerOf("webhooks", webhook!.id));
  });

  it("changed, turned off and on, secret rotated, deleted: one entry each; a no-op and refusals none", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const updated = await expectOneEntry(tenant.org.id, "webhook.updated", async () => {
      expectSuccess(await patch(tenant.key, webhook.id, { url: "https://hooks.example.net/in/abc", events: ["project.*"] }));
    });
    expect(updated.changes).toEqual({
      url: { from: new URL(receiver.url).origin, to: "https://hooks.example.net" },
      events: { from: [], to: ["project.*"] },
    });
    expectFromThisRequest(updated);
    const reader = await tenant.keyWith(["webhooks.read"]);
    const before = await auditRows(tenant.org.id);
    expectSuccess(await patch(tenant.key, webhook.id, { events: ["project.*"] }));
    expectError(await patch(tenant.key, webhook.id, { url: "ftp://nope" }), 400, "invalid_field");
    expectError(await patch(reader.key, webhook.id, { enabled: false }), 403, "insufficient_scope");
    expect(await auditRows(tenant.org.id)).toEqual(before);
    const disabled = await expectOneEntry(tenant.org.id, "webhook.disabled", async () => {
      expectSuccess(await patch(tenant.key, webhook.id, { enabled: false }));
    });
    expect(disabled.changes).toEqual({ enabled: { from: true, to: false } });
    await expectOneEntry(tenant.org.id, "webhook.enabled", async () => {
      expectSuccess(await patch(tenant.key, webhook.id, { enabled: true }));
    });
    let secret = "";
    const rotated = await expectOneEntry(tenant.org.id, "webhook.secret_rotated", async () => {
      secret = expectSuccess(await api(`/v1/webhooks/${webhook.id}/rotate-secret`, { key: tenant.key, method: "POST", body: {} })).data
        .secret;
    });
    expect(JSON.stringify(rotated)).not.toContain(secret);
    expect(JSON.stringify(rotated)).not.toContain(webhook.secret);
    const deleted = await expectOneEntry(tenant.org.id, "webhook.deleted", async () => {
      expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key, method: "DELETE" }));
    });
    expect(deleted).toMatchObject({
      actor: keyActor(tenant),
      target: { type: "webhook", id: webhook.id, name: "https://hooks.example.net" },
    });
    expectFromThisRequest(deleted);
  });

  it("replayed: the range, once per replay; a replay refused (range, scopes) records nothing", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    await created(tenant.key, "/v1/projects", projectBody());
    await created(tenant.key, "/v1/projects", projectBody());
    const narrow = await tenant.keyWith(["webhooks.manage"]);
    const before = await auditRows(tenant.org.id);
    const replay = (key: string, body: unknown) => api(`/v1/webhooks/${webhook.id}/replay`, { key, method: "POST", body });
    expectError(await replay(tenant.key, { after: 5 }), 400, "invalid_field");
    expectError(await replay(tenant.key, { after: 1, until: 1 }), 400, "invalid_field");
    expectError(await replay(narrow.key, { after: 0 }), 403, "insufficient_scope");
    expect(await auditRows(tenant.org.id)).toEqual(before);
    const replayed = await expectOneEntry(tenant.org.id, "webhook.replayed", async () => {
      expectSuccess(await replay(tenant.key, { after: 0, until: 2 }), 202);
    });
    expect(replayed).toMatchObject({
      actor: keyActor(tenant),
      target: { type: "webhook", id: webhook.id },
      changes: { after: { to: 0 }, until: { to: 2 } },
    });
    expectFromThisRequest(replayed);
  });
});
