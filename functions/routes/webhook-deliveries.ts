import { z } from "@hono/zod-openapi";
import { pageRequest } from "../../db/queries/paging.ts";
import { deliveredEvent, listDeliveries } from "../../db/queries/webhook-deliveries.ts";
import { requireWebhook } from "../../db/queries/webhooks.ts";
import { listEnvelope, sendList } from "../envelope.ts";
import { ApiError } from "../errors.ts";
import type { OpsEvent } from "../lib/events.ts";
import { uuidv7 } from "../lib/ids.ts";
import { tellRoom } from "../lib/realtime.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { DeliveryParams, DeliverySchema, ListWebhooksQuery } from "../schemas/webhooks.ts";
import type { RecordJson } from "../../db/queries/records.ts";
import type { Bindings } from "../env.ts";

const tag = "Webhooks";

const QueuedSchema = z.object({
  success: z.literal(true),
  version: z.literal("v1"),
  message: z.string(),
  data: z.object({ webhookId: z.string(), eventId: z.string(), eventType: z.string() }),
});

function testEvent(orgId: string, webhookId: string): OpsEvent {
  return {
    id: uuidv7(),
    type: "webhook.test",
    orgId,
    // A test changes nothing, so it has no place in the organisation's sequence.
    changeVersion: 0,
    occurredAt: new Date().toISOString(),
    data: { webhookId, message: "This is a test delivery from opsroom." },
    changes: null,
  };
}

/** Hands one event to the room for one webhook; the room queues it like any delivery. */
async function queueDelivery(env: Bindings, webhook: RecordJson, event: OpsEvent) {
  const orgId = webhook.orgId as string;
  const webhookId = webhook.id as string;
  // The room delivers nothing to a webhook that is off: say so rather than queue what never goes.
  if (!webhook.enabled) throw new ApiError("conflict", "the webhook is disabled; turn it on with PATCH { \"enabled\": true } first");
  try {
    await tellRoom(env, orgId, { deliver: { webhookId, event } });
  } catch {
    throw new ApiError("unavailable", "the realtime room could not take the delivery; retry shortly");
  }
  return { success: true, version: "v1", message: "delivery queued", data: { webhookId, eventId: event.id, eventType: event.type } };
}

export const webhookDeliveryRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/test",
    operationId: "testWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Send a webhook.test event to the webhook now",
    params: IdParams,
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The test delivery is queued; see its attempts under deliveries." },
    async handler(c, { params }) {
      const webhook = await requireWebhook(c.var.db, c.var.actor, params.id, "webhooks.manage");
      return c.json(await queueDelivery(c.env, webhook, testEvent(webhook.orgId as string, webhook.id)), 202);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    operationId: "listWebhookDeliveries",
    scope: "webhooks.read",
    tag,
    summary: "List a webhook's delivery attempts, newest first",
    params: IdParams,
    query: ListWebhooksQuery,
    response: { schema: listEnvelope(DeliverySchema), description: "A page of attempts." },
    async handler(c, { params, query }) {
      return sendList(c, await listDeliveries(c.var.db, c.var.actor, params.id, pageRequest(query)), ["delivery", "deliveries"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    operationId: "redeliverWebhookDelivery",
    scope: "webhooks.manage",
    tag,
    summary: "Send a past delivery's event again",
    params: DeliveryParams,
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The redelivery is queued." },
    async handler(c, { params }) {
      const webhook = await requireWebhook(c.var.db, c.var.actor, params.id, "webhooks.manage");
      const orgId = webhook.orgId as string;
      const { eventType, event } = await deliveredEvent(c.var.db, c.var.actor, params.id, params.deliveryId);
      const resend = event ?? (eventType === "webhook.test" ? testEvent(orgId, webhook.id) : null);
      if (!resend) throw new ApiError("conflict", "the event of this delivery is older than 30 days and no longer kept");
      return c.json(await queueDelivery(c.env, webhook, resend), 202);
    },
  }),
];
