import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { expectNoTrace, snapshot } from "../helpers/database.ts";
import { createTenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { describeRefusals } from "../helpers/refusals.ts";
import { created, ISO_TIMESTAMP, patched, projectBody } from "../helpers/resources.ts";
import { startReceiver, type Delivery } from "../helpers/webhook-receiver.ts";
import { insertWebhook, registerWebhook, untilPast } from "./helpers.ts";

// POST /v1/webhooks/:id/rotate-secret (docs/api.md "Webhooks"): a new signing secret, answered
// once; for the overlap every delivery carries a signature under the new and one under the old
// secret (Standard Webhooks allows several), then only the new one. Each signature is checked
// with the standardwebhooks verifier, as a receiver holding either secret would.

useRoom();

const rotate = (key: string, webhookId: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  api(`/v1/webhooks/${webhookId}/rotate-secret`, { key, method: "POST", body, headers });

/** Whether a receiver holding `secret` accepts the delivery. */
function verifies(secret: string, delivery: Delivery): boolean {
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers);
    return true;
  } catch {
    return false;
  }
}

describe("rotating the secret", () => {
  it("answers the new secret once; during the overlap both secrets verify, after it only the new one", { timeout: 30_000 }, async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const rotated = expectSuccess(await rotate(tenant.key, webhook.id, { overlapSeconds: 3 })).data;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(webhook.secret);
    expect(rotated).toMatchObject({
      id: webhook.id,
      version: webhook.version + 1,
      previousSecretExpiresAt: expect.stringMatching(ISO_TIMESTAMP),
    });
    const overlapEnds = Date.parse(rotated.previousSecretExpiresAt);
    expect(overlapEnds - Date.now()).toBeGreaterThan(1_000);
    expect(overlapEnds - Date.now()).toBeLessThanOrEqual(3_000);
    receiver.useSecret(rotated.secret);

    const project = await created(tenant.key, "/v1/projects", projectBody());
    const [during] = await receiver.waitForCount(1);
    expect(Number(during!.headers["webhook-timestamp"]) * 1000).toBeLessThan(overlapEnds);
    expect(during!.headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/);
    expect([verifies(rotated.secret, during!), verifies(webhook.secret, during!)]).toEqual([true, true]);

    await untilPast(overlapEnds);
    await patched(tenant.key, `/v1/projects/${project.id}`, { status: "active" });
    const [, after] = await receiver.waitForCount(2);
    expect(after!.headers["webhook-signature"]).toMatch(/^v1,\S+$/);
    expect([verifies(rotated.secret, after!), verifies(webhook.secret, after!)]).toEqual([true, false]);

    // The secret is never answered again.
    for (const response of [await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key }), await api("/v1/webhooks", { key: tenant.key })]) {
      expect(expectSuccess(response).data).toBeDefined();
      expect(response.text).not.toContain("whsec_");
    }
  });

  it("a second rotation ends the first one's overlap: the original secret no longer verifies", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const first = expectSuccess(await rotate(tenant.key, webhook.id)).data;
    // The default overlap, a day.
    expect(Date.parse(first.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(86_390_000);
    const second = expectSuccess(await rotate(tenant.key, webhook.id, { overlapSeconds: 600 }, { "if-match": `"${first.version}"` })).data;
    receiver.useSecret(second.secret);
    await created(tenant.key, "/v1/projects", projectBody());
    const [delivery] = await receiver.waitForCount(1);
    expect([verifies(second.secret, delivery!), verifies(first.secret, delivery!), verifies(webhook.secret, delivery!)]).toEqual([
      true,
      true,
      false,
    ]);
  });

  it("overlapSeconds 0: only the new secret from the next delivery on", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const rotated = expectSuccess(await rotate(tenant.key, webhook.id, { overlapSeconds: 0 })).data;
    receiver.useSecret(rotated.secret);
    expectSuccess(await api(`/v1/webhooks/${webhook.id}/test`, { key: tenant.key, method: "POST" }), 202);
    const [delivery] = await receiver.waitForCount(1);
    expect([verifies(rotated.secret, delivery!), verifies(webhook.secret, delivery!)]).toEqual([true, false]);
  });
});

describe("refused rotations change nothing", () => {
  it("overlapSeconds out of 0..604800 or not a whole number: 400 invalid_field naming it", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    const before = await snapshot(tenant.org.id);
    for (const overlapSeconds of [-1, 604_801, 1.5, "60", null]) {
      expectError(await rotate(tenant.key, webhook, { overlapSeconds }), 400, "invalid_field", { field: "overlapSeconds" });
    }
    expectError(await rotate(tenant.key, webhook, { overlap: 5 }), 400, "unknown_field", { field: "overlap" });
    expectNoTrace(before, await snapshot(tenant.org.id));
  });

  it("a key without every scope the webhook carries: 403; a stale If-Match: 412", async () => {
    const tenant = await createTenant();
    const receiver = await startReceiver();
    const webhook = await registerWebhook(tenant.key, receiver);
    const manager = await tenant.keyWith(["webhooks.manage", "tasks.read"]);
    const before = await snapshot(tenant.org.id);
    expectError(await rotate(manager.key, webhook.id), 403, "insufficient_scope", { scope: "organisation.read" });
    expectError(await rotate(tenant.key, webhook.id, {}, { "if-match": '"7"' }), 412, "precondition_failed", { currentVersion: 1 });
    expectNoTrace(before, await snapshot(tenant.org.id));
    // Deliveries still verify under the secret the webhook was created with.
    await created(tenant.key, "/v1/projects", projectBody());
    expect((await receiver.waitForCount(1))[0]!.verified).toBe(true);
  });
});

describeRefusals({
  method: "POST",
  path: (id) => `/v1/webhooks/${id}/rotate-secret`,
  scope: "webhooks.manage",
  record: insertWebhook,
  body: () => ({}),
});
