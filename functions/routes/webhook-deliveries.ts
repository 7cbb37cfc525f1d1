import { z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/paging.ts";
import { redeliver, testWebhook, webhookDeliveries } from "../../services/webhooks.ts";
import { serviceContext } from "../context.ts";
import { listEnvelope, listReply, reply } from "../envelope.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { DeliveryParams, DeliverySchema, ListWebhooksQuery } from "../schemas/webhooks.ts";

const tag = "Webhooks";

const QueuedSchema = z.object({
  success: z.literal(true),
  version: z.literal("v1"),
  message: z.string(),
  data: z.object({ webhookId: z.string(), eventId: z.string(), eventType: z.string() }),
});

export const webhookDeliveryRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/test",
    operationId: "testWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Send a webhook.test event to the webhook now",
    params: IdParams,
    description: "Needs webhooks.manage and every read scope the webhook carries.",
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The test delivery is queued; see its attempts under deliveries." },
    async handler(c, { params }) {
      return reply(await testWebhook({ ctx: serviceContext(c), input: { id: params.id } }), "delivery queued");
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks/{id}/deliveries",
    operationId: "listWebhookDeliveries",
    scope: "webhooks.read",
    tag,
    summary: "List a webhook's delivery attempts, newest first",
    description: "Needs webhooks.read and every read scope the webhook carries (the attempts show its events).",
    params: IdParams,
    query: ListWebhooksQuery,
    response: { schema: listEnvelope(DeliverySchema), description: "A page of attempts." },
    async handler(c, { params, query }) {
      const page = await webhookDeliveries({ ctx: serviceContext(c), input: { webhookId: params.id, page: pageRequest(query) } });
      return listReply(c.req.url, page, ["delivery", "deliveries"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver",
    operationId: "redeliverWebhookDelivery",
    scope: "webhooks.manage",
    tag,
    summary: "Send a past delivery's event again",
    description: "Needs webhooks.manage and every read scope the webhook carries.",
    params: DeliveryParams,
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The redelivery is queued." },
    async handler(c, { params }) {
      return reply(await redeliver({ ctx: serviceContext(c), input: { webhookId: params.id, deliveryId: params.deliveryId } }), "delivery queued");
    },
  }),
];
