import { randomBytes, randomUUID } from "node:crypto";
import { expect } from "vitest";
import { uuidv7 } from "../../functions/lib/ids.ts";
import { api, expectSuccess } from "../helpers/api.ts";
import { query } from "../helpers/database.ts";
import type { Tenant } from "../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import type { DeliveryAttempt } from "../../db/queries/webhook-deliveries.ts";

// Shared by the webhook test files: registering a receiver through the API, and reading a
// webhook's delivery log.

/** A delivery attempt as GET /v1/webhooks/:id/deliveries answers it. */
export type DeliveryRecord = DeliveryAttempt & { createdAt: string };

/** POST /v1/webhooks for the receiver with `key`; the receiver then verifies with the secret. */
export async function registerWebhook(key: string, receiver: Receiver, fields: Record<string, unknown> = {}) {
  const created = expectSuccess(await api("/v1/webhooks", { key, body: { url: receiver.url, ...fields } }), 201).data;
  expect(created.secret).toMatch(/^whsec_/);
  receiver.useSecret(created.secret);
  return created as { id: string; secret: string; scopes: string[]; events: string[]; enabled: boolean; version: number };
}

/** Two webhooks of the key's organisation: one whose receiver never answers, one that answers at once. */
export async function stalledAndHealthy(key: string): Promise<{ stalled: Receiver; healthy: Receiver }> {
  const stalled = await startReceiver("stalled");
  stalled.answerWith(() => "hang");
  const healthy = await startReceiver("healthy");
  await registerWebhook(key, stalled);
  await registerWebhook(key, healthy);
  return { stalled, healthy };
}

/** The webhook's delivery attempts (every page), oldest first. */
export async function deliveryLog(key: string, webhookId: string): Promise<DeliveryRecord[]> {
  const newestFirst: DeliveryRecord[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: unknown; nextCursor?: string | null } = expectSuccess(await api(`/v1/webhooks/${webhookId}/deliveries?limit=200${cursor ? `&cursor=${cursor}` : ""}`, { key }));
    newestFirst.push(...(page.data as DeliveryRecord[]));
    cursor = page.nextCursor ?? null;
  } while (cursor);
  return newestFirst.reverse();
}

/** Polls the delivery log until `done` holds (the room reports attempts just after making them). */
export async function waitForLog(key: string, webhookId: string, done: (log: DeliveryRecord[]) => boolean, timeoutMs = 10_000): Promise<DeliveryRecord[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await deliveryLog(key, webhookId);
    if (done(log)) return log;
    if (Date.now() > deadline) throw new Error(`delivery log of ${webhookId} after ${timeoutMs} ms: ${JSON.stringify(log.map((d) => [d.eventType, d.attempt, d.outcome, d.responseStatus]))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A webhook row straight in the database (no room involved): for refusal tests. */
export async function insertWebhook(tenant: Tenant): Promise<string> {
  const id = uuidv7();
  await query("insert into webhooks (id, org_id, scopes, url, secret) values ($1, $2, $3, $4, $5)", [
    id,
    tenant.org.id,
    ["tasks.read"],
    "https://example.com/hooks/opsroom",
    `whsec_${randomBytes(24).toString("base64")}`,
  ]);
  return id;
}

/** A delivery attempt row of the webhook, as the room would have reported it. */
export async function insertDelivery(tenant: Tenant, webhookId: string, createdAt = new Date()): Promise<string> {
  const id = uuidv7();
  await query(
    `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, attempt, outcome, response_status, duration_ms, created_at)
     values ($1, $2, $3, $4, 'webhook.test', 1, 'succeeded', 200, 12, $5)`,
    [id, tenant.org.id, webhookId, randomUUID(), createdAt],
  );
  return id;
}

export const settle = (ms = 500) => new Promise((resolve) => setTimeout(resolve, ms));
