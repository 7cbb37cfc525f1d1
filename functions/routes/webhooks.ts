import { pageRequest } from "../../db/queries/paging.ts";
import { createWebhook, deleteWebhook, listWebhooks, requireWebhook, updateWebhook } from "../../db/queries/webhooks.ts";
import { listEnvelope, recordEnvelope, sendList, sendRecord, sendWrite } from "../envelope.ts";
import type { AppEnv } from "../env.ts";
import { parseIfMatch } from "../lib/preconditions.ts";
import { tellRoom } from "../lib/realtime.ts";
import { checkWebhookUrl } from "../lib/webhook-urls.ts";
import { defineRoute } from "../registry.ts";
import { IdParams } from "../schemas/common.ts";
import { CreatedWebhookSchema, CreateWebhookSchema, ListWebhooksQuery, UpdateWebhookSchema, WebhookSchema } from "../schemas/webhooks.ts";
import type { Context } from "hono";

const tag = "Webhooks";

const allowLoopback = (c: Context<AppEnv>) => c.env.WEBHOOKS_ALLOW_LOOPBACK === "true";

/**
 * The room caches the organisation's webhooks: it is told to reload them before the answer goes
 * out, so the caller's next write is already delivered under the new settings. A room that cannot
 * be told (down) loads them afresh when it next wakes; the change is committed either way.
 */
async function reloadRoomWebhooks(c: Context<AppEnv>, orgId: string): Promise<void> {
  await tellRoom(c.env, orgId, { webhooksChanged: true }).catch((error: unknown) =>
    console.warn(JSON.stringify({ level: "warn", requestId: c.var.requestId, message: "the room could not reload its webhooks", cause: String(error) })),
  );
}

export const webhookRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/webhooks",
    operationId: "listWebhooks",
    scope: "webhooks.read",
    tag,
    summary: "List the organisation's webhooks (never their secrets)",
    query: ListWebhooksQuery,
    response: { schema: listEnvelope(WebhookSchema), description: "A page of webhooks in creation order." },
    async handler(c, { query }) {
      return sendList(c, await listWebhooks(c.var.db, c.var.actor, pageRequest(query)), ["webhook", "webhooks"]);
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks",
    operationId: "createWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Register a webhook; the answer carries its signing secret, shown this once",
    description:
      "The webhook receives the events the registering key's read scopes could see, narrowed by `events` patterns. " +
      "Requests follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature); the URL must be https.",
    body: CreateWebhookSchema,
    response: { status: 201, schema: recordEnvelope(CreatedWebhookSchema), description: "The webhook with its secret." },
    async handler(c, { body }) {
      const url = checkWebhookUrl(body.url, allowLoopback(c));
      const result = await createWebhook(c.var.db, c.var.actor, { ...body, url }, c.var.idempotency);
      await reloadRoomWebhooks(c, result.record.orgId as string);
      return sendWrite(c, result, "webhook created", 201);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/webhooks/{id}",
    operationId: "getWebhook",
    scope: "webhooks.read",
    tag,
    summary: "Fetch one webhook",
    params: IdParams,
    response: { schema: recordEnvelope(WebhookSchema), description: "The webhook." },
    async handler(c, { params }) {
      return sendRecord(c, await requireWebhook(c.var.db, c.var.actor, params.id), "webhook");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/webhooks/{id}",
    operationId: "updateWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Change a webhook's url, events or enabled",
    params: IdParams,
    body: UpdateWebhookSchema,
    errors: ["precondition_failed", "conflict"],
    response: { schema: recordEnvelope(WebhookSchema), description: "The changed webhook." },
    async handler(c, { params, body }) {
      const patch = body.url === undefined ? body : { ...body, url: checkWebhookUrl(body.url, allowLoopback(c)) };
      const result = await updateWebhook(c.var.db, c.var.actor, params.id, patch, parseIfMatch(c.req.header("if-match")));
      await reloadRoomWebhooks(c, result.record.orgId as string);
      return sendWrite(c, result, "webhook updated");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/webhooks/{id}",
    operationId: "deleteWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Remove a webhook; queued deliveries to it are dropped",
    params: IdParams,
    errors: ["precondition_failed", "conflict"],
    response: { schema: recordEnvelope(WebhookSchema), description: "The webhook as it was." },
    async handler(c, { params }) {
      const result = await deleteWebhook(c.var.db, c.var.actor, params.id, parseIfMatch(c.req.header("if-match")));
      await reloadRoomWebhooks(c, result.record.orgId as string);
      return sendWrite(c, result, "webhook deleted");
    },
  }),
];
