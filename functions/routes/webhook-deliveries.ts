import { z } from "@hono/zod-openapi";
import { pageRequest } from "../../domain/paging.ts";
import { REPLAY_EVENTS_PER_REQUEST, REPLAY_MAX_SPAN, replayWebhook } from "../../services/webhook-replay.ts";
import { redeliver, testWebhook, webhookDeliveries } from "../../services/webhooks.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { listEnvelope, listReply, recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { consumeMore } from "../middleware/rate-limit.ts";
import { IdParams } from "../schemas/common.ts";
import { DeliveriesQuery, DeliveryParams, DeliverySchema, ReplayedSchema, ReplaySchema } from "../schemas/webhooks.ts";

const tag = "Webhooks";

const BACKLOG_FULL =
  "409 conflict when the webhook is off, or when its backlog of queued deliveries has no room for what this would queue (`error.backlog`, `error.backlogLimit`).";

const QueuedSchema = recordEnvelope(z.object({ webhookId: z.string(), eventId: z.string(), eventType: z.string() }));

export const webhookDeliveryRoutes = [
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/test",
    operationId: "testWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Send a webhook.test event to the webhook now",
    params: IdParams,
    description: `Needs webhooks.manage and every read scope the webhook carries. ${BACKLOG_FULL}`,
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The test delivery is queued; see its attempts under deliveries." },
    verb: testWebhook,
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
    summary: "List a webhook's delivery attempts, newest first, by outcome, event type and time if asked",
    description: "Needs webhooks.read and every read scope the webhook carries (the attempts show its events).",
    params: IdParams,
    query: DeliveriesQuery,
    response: { schema: listEnvelope(DeliverySchema), description: "A page of attempts.", headers: ["Link"] },
    verb: webhookDeliveries,
    async handler(c, { params, query }) {
      const { outcome, eventType, since, ...paging } = query;
      const input = { webhookId: params.id, page: pageRequest(paging), filter: { outcome, eventType, since } };
      const page = await webhookDeliveries({ ctx: serviceContext(c), input });
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
    description: `Needs webhooks.manage and every read scope the webhook carries. ${BACKLOG_FULL}`,
    params: DeliveryParams,
    errors: ["conflict"],
    response: { status: 202, schema: QueuedSchema, description: "The redelivery is queued." },
    verb: redeliver,
    async handler(c, { params }) {
      return reply(
        await redeliver({ ctx: serviceContext(c), input: { webhookId: params.id, deliveryId: params.deliveryId } }),
        "delivery queued",
      );
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/replay",
    operationId: "replayWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Send a webhook the past events it would have received in (after, until] again",
    description:
      "Needs webhooks.manage and every read scope the webhook carries. Queues, in changeVersion order, every kept event of the range that the webhook's scopes and filter select " +
      `(behind what is already queued for it). A range spans at most ${REPLAY_MAX_SPAN} changeVersions: split a longer one. ` +
      "410 resync_required when `after` is older than the events kept (`error.oldestChangeVersion`). " +
      `It counts a request of the rate limit per ${REPLAY_EVENTS_PER_REQUEST} events it queues, and queues only as many as the limit has left (then 429 with Retry-After). ` +
      `${BACKLOG_FULL} A replay stopped midway (429, 409, 503) keeps what it queued and answers \`error.queuedUpTo\`: go on with after=queuedUpTo.`,
    params: IdParams,
    body: ReplaySchema,
    errors: ["conflict", "resync_required"],
    response: {
      status: 202,
      schema: recordEnvelope(ReplayedSchema),
      description: "The events are queued; see their attempts under deliveries.",
    },
    verb: replayWebhook,
    async handler(c, { params, body }) {
      const input = {
        id: params.id,
        after: body.after,
        until: body.until ?? null,
        retentionSeconds: settingsOf(c.env).events.retentionSeconds,
        charge: (more: number) => consumeMore(c, more, "this replay"),
      };
      return reply(await replayWebhook({ ctx: serviceContext(c), input }), "events queued");
    },
  }),
];
