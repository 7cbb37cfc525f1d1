import { describe, expect, it } from "vitest";
import { uuidv7 } from "../../domain/ids.ts";
import { api, expectError, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import { createTenant, type Tenant } from "../helpers/fixtures.ts";
import { useRoom } from "../helpers/realtime.ts";
import { created, projectBody } from "../helpers/resources.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { insertWebhook, registerWebhook, untilPast, waitForLog } from "./helpers.ts";

// The delivery log's filters (GET /v1/webhooks/:id/deliveries?outcome=&eventType=&since=), and
// lastDeliveredChangeVersion, which the statement recording the room's attempts keeps.

useRoom();

/** An attempt row as the room would have reported it. */
async function insertAttempt(
  tenant: Tenant,
  webhookId: string,
  fields: { outcome: string; eventType: string; createdAt: string },
): Promise<string> {
  const id = uuidv7();
  await query(
    `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, outcome, created_at)
     values ($1, $2, $3, gen_random_uuid(), $4, 1, $5, $6)`,
    [id, tenant.org.id, webhookId, fields.eventType, fields.outcome, fields.createdAt],
  );
  return id;
}

const ids = (response: Awaited<ReturnType<typeof api>>) => expectSuccess(response).data.map((d: { id: string }) => d.id);

describe("filtering the delivery log", () => {
  it("by outcome, event type and since, alone, together and across pages", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    const a = await insertAttempt(tenant, webhook, { outcome: "succeeded", eventType: "task.updated", createdAt: "2026-03-01T10:00:00Z" });
    const b = await insertAttempt(tenant, webhook, { outcome: "failed", eventType: "task.updated", createdAt: "2026-03-02T10:00:00Z" });
    const c = await insertAttempt(tenant, webhook, { outcome: "retrying", eventType: "task.created", createdAt: "2026-03-03T10:00:00Z" });
    const d = await insertAttempt(tenant, webhook, { outcome: "succeeded", eventType: "webhook.test", createdAt: "2026-03-04T10:00:00Z" });
    const log = (params: string) => api(`/v1/webhooks/${webhook}/deliveries?${params}`, { key: tenant.key });

    expect(ids(await log(""))).toEqual([d, c, b, a]);
    expect(ids(await log("outcome=succeeded"))).toEqual([d, a]);
    expect(ids(await log("outcome=failed"))).toEqual([b]);
    expect(ids(await log("outcome=retrying"))).toEqual([c]);
    expect(ids(await log("eventType=task.updated"))).toEqual([b, a]);
    expect(ids(await log("eventType=webhook.test"))).toEqual([d]);
    expect(ids(await log("eventType=issue.deleted"))).toEqual([]);
    expect(ids(await log("since=2026-03-02T10:00:00Z"))).toEqual([d, c, b]);
    expect(ids(await log("since=2026-03-02T12:00:00%2B02:00"))).toEqual([d, c, b]);
    expect(ids(await log("outcome=succeeded&eventType=task.updated"))).toEqual([a]);
    expect(ids(await log("outcome=succeeded&since=2026-03-02T00:00:00Z"))).toEqual([d]);

    const first = expectSuccess(await log("eventType=task.updated&limit=1"));
    expect(first.data.map((x: { id: string }) => x.id)).toEqual([b]);
    expect(ids(await log(`eventType=task.updated&limit=1&cursor=${first.nextCursor}`))).toEqual([a]);
  });

  it("a bad value: 400 invalid_field naming the parameter; an unknown one: 400 unknown_field", async () => {
    const tenant = await createTenant();
    const webhook = await insertWebhook(tenant);
    const refusals: Array<[string, string]> = [
      ["outcome=done", "outcome"],
      ["outcome=", "outcome"],
      ["eventType=task", "eventType"],
      ["eventType=task.*", "eventType"],
      ["eventType=spaceship.launched", "eventType"],
      ["eventType=" + "a".repeat(101), "eventType"],
      ["since=yesterday", "since"],
      ["since=2026-13-01T00:00:00Z", "since"],
      ["since=2026-03-01", "since"],
      ["since=0000-01-01T00:00:00Z", "since"],
    ];
    for (const [params, field] of refusals) {
      expectError(await api(`/v1/webhooks/${webhook}/deliveries?${params}`, { key: tenant.key }), 400, "invalid_field", { field });
    }
    expectError(await api(`/v1/webhooks/${webhook}/deliveries?status=failed`, { key: tenant.key }), 400, "unknown_field", {
      field: "status",
    });
  });
});

describe("lastDeliveredChangeVersion", () => {
  it(
    "the highest changeVersion delivered successfully: a failure does not move it, a replay of older events does not lower it",
    { timeout: 30_000 },
    async () => {
      const tenant = await createTenant();
      const receiver = await startReceiver();
      const webhook = await registerWebhook(tenant.key, receiver, { ordered: true });
      const current = async () =>
        expectSuccess(await api(`/v1/webhooks/${webhook.id}`, { key: tenant.key })).data.lastDeliveredChangeVersion;
      expect(await current()).toBeNull();
      for (let i = 0; i < 3; i++) await created(tenant.key, "/v1/projects", projectBody());
      await waitForLog(tenant.key, webhook.id, (log) => log.length === 3);
      expect(await current()).toBe(3);

      // Event 4 fails, and is retried 5 s later.
      receiver.answerWith(() => 500);
      await created(tenant.key, "/v1/projects", projectBody());
      const [failed] = (await waitForLog(tenant.key, webhook.id, (log) => log.length === 4)).slice(-1);
      expect(failed).toMatchObject({ changeVersion: 4, outcome: "retrying" });
      expect(await current()).toBe(3);

      // Replayed behind the retry (ordered): 1 and 2 delivered again after 4 is.
      receiver.answerWith(() => 200);
      expectSuccess(await api(`/v1/webhooks/${webhook.id}/replay`, { key: tenant.key, method: "POST", body: { after: 0, until: 2 } }), 202);
      await untilPast(Date.parse(failed!.nextRetryAt!));
      await waitForLog(tenant.key, webhook.id, (log) => log.length === 7, 15_000);
      expect(await current()).toBe(4);
    },
  );
});
