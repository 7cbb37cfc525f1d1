import { pageRequest } from "../../domain/paging.ts";
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from "../../services/webhooks.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { listEnvelope, listReply, recordEnvelope, recordReply, writeReply } from "../http/envelope.ts";
import { parseIfMatch } from "../http/preconditions.ts";
import { defineRoute } from "../http/registry.ts";
import { IdParams } from "../schemas/common.ts";
import {
  CreatedWebhookSchema,
  CreateWebhookSchema,
  ListWebhooksQuery,
  RotateSecretSchema,
  UpdateWebhookSchema,
  WebhookSchema,
} from "../schemas/webhooks.ts";

const tag = "Webhooks";

export const webhookRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/webhooks",
    operationId: "listWebhooks",
    scope: "webhooks.read",
    tag,
    summary: "List the organisation's webhooks (never their secrets)",
    query: ListWebhooksQuery,
    response: { schema: listEnvelope(WebhookSchema), description: "A page of webhooks in creation order.", headers: ["Link"] },
    verb: listWebhooks,
    async handler(c, { query }) {
      return listReply(c.req.url, await listWebhooks({ ctx: serviceContext(c), input: { page: pageRequest(query) } }), [
        "webhook",
        "webhooks",
      ]);
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
      "The webhook receives the events the registering key's read scopes could see, narrowed by its filter: `events` patterns, `projectId`, `excludeOwn`. " +
      "`ordered: true` sends event N+1 only once N is delivered or given up. " +
      "Requests follow Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature); the URL must be https to a public address.",
    body: CreateWebhookSchema,
    errors: ["idempotency_mismatch", "invalid_reference"],
    response: {
      status: 201,
      schema: recordEnvelope(CreatedWebhookSchema),
      description: "The webhook with its secret.",
      headers: ["ETag", "Idempotent-Replayed"],
    },
    verb: createWebhook,
    async handler(c, { body }) {
      const result = await createWebhook({ ctx: serviceContext(c), input: { ...body, policy: settingsOf(c.env).webhooks } });
      return writeReply(result, "webhook created");
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
    response: { schema: recordEnvelope(WebhookSchema), description: "The webhook.", headers: ["ETag"] },
    verb: getWebhook,
    async handler(c, { params }) {
      return recordReply(await getWebhook({ ctx: serviceContext(c), input: { id: params.id } }), "webhook");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/webhooks/{id}",
    operationId: "updateWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Change a webhook's url, filter (events, projectId, excludeOwn), ordered, description or enabled",
    description: "Needs webhooks.manage and every read scope the webhook carries: whoever points it elsewhere receives what it sees.",
    params: IdParams,
    body: UpdateWebhookSchema,
    errors: ["precondition_failed", "conflict", "invalid_reference"],
    response: { schema: recordEnvelope(WebhookSchema), description: "The changed webhook.", headers: ["ETag"] },
    verb: updateWebhook,
    async handler(c, { params, body }) {
      const input = { id: params.id, patch: body, ifMatch: parseIfMatch(c.req.header("if-match")), policy: settingsOf(c.env).webhooks };
      return writeReply(await updateWebhook({ ctx: serviceContext(c), input }), "webhook updated");
    },
  }),
  defineRoute({
    method: "delete",
    path: "/v1/webhooks/{id}",
    operationId: "deleteWebhook",
    scope: "webhooks.manage",
    tag,
    summary: "Remove a webhook; queued deliveries to it are dropped",
    description: "Needs webhooks.manage only: removing a webhook discloses nothing.",
    params: IdParams,
    errors: ["precondition_failed", "conflict"],
    response: { schema: recordEnvelope(WebhookSchema), description: "The webhook as it was.", headers: ["ETag"] },
    verb: deleteWebhook,
    async handler(c, { params }) {
      return writeReply(
        await deleteWebhook({ ctx: serviceContext(c), input: { id: params.id, ifMatch: parseIfMatch(c.req.header("if-match")) } }),
        "webhook deleted",
      );
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/webhooks/{id}/rotate-secret",
    operationId: "rotateWebhookSecret",
    scope: "webhooks.manage",
    tag,
    summary: "Replace a webhook's signing secret; the answer carries the new one, shown this once",
    description:
      "Needs webhooks.manage and every read scope the webhook carries. For `overlapSeconds` (default 86400, at most 604800) every delivery carries " +
      "two signatures in webhook-signature, under the new secret and the old one, so a receiver can switch without losing a request; then only the new one. " +
      "Honours If-Match. A second rotation ends the first one's overlap.",
    params: IdParams,
    body: RotateSecretSchema,
    errors: ["precondition_failed", "conflict"],
    response: { schema: recordEnvelope(CreatedWebhookSchema), description: "The webhook with its new secret.", headers: ["ETag"] },
    verb: rotateWebhookSecret,
    async handler(c, { params, body }) {
      const input = { id: params.id, overlapSeconds: body.overlapSeconds, ifMatch: parseIfMatch(c.req.header("if-match")) };
      return writeReply(await rotateWebhookSecret({ ctx: serviceContext(c), input }), "webhook secret rotated");
    },
  }),
];
