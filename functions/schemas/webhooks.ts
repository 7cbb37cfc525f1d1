import { z } from "@hono/zod-openapi";
import { EVENT_SCOPES } from "../../domain/events.ts";
import { Description, Timestamp, Uuid, noNul, pageQuery, publicRecord, recordFields } from "./common.ts";
import type { WebhookRecord } from "../../services/webhooks.ts";

const EVENT_RESOURCES = Object.keys(EVENT_SCOPES);

/** "task.updated", "task.*" or "*": an event name, a resource's events, or every event. */
const EventPattern = z
  .string()
  .max(100)
  .refine((pattern) => {
    if (pattern === "*") return true;
    const [resource, action, ...rest] = pattern.split(".");
    return rest.length === 0 && EVENT_RESOURCES.includes(resource ?? "") && /^(\*|[a-z]+)$/.test(action ?? "");
  }, `must be "*", "<resource>.*" or "<resource>.<action>" with resource one of ${EVENT_RESOURCES.join(", ")}`)
  .openapi({ example: "task.*" });

const Url = z.string().min(8).max(2048).refine(noNul).openapi({ example: "https://example.com/hooks/opsroom" });

export const WebhookSchema = publicRecord<WebhookRecord>()(
  z
    .object({
      ...recordFields,
      url: z.string(),
      description: z.string().nullable(),
      events: z.array(z.string()).openapi({ description: "Patterns; empty means every event the webhook may see." }),
      scopes: z.array(z.string()).openapi({
        description: "The read scopes of the key that registered it: what it may see. Changing, testing or redelivering it, or reading its deliveries, needs every one of them.",
      }),
      enabled: z.boolean(),
      createdByKeyId: Uuid.nullable().openapi({
        description: "The API key that registered it. The webhook belongs to the organisation and keeps delivering after that key is revoked.",
      }),
      createdByUserId: Uuid.nullable().openapi({
        description: "The person who registered it in the settings area (then createdByKeyId is null). It sees what their role could read then.",
      }),
      disabledReason: z.string().nullable().openapi({ description: "Why deliveries stopped, e.g. the receiver answered 410." }),
    })
    .openapi("Webhook")
);

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z.string().openapi({ description: "The signing secret (whsec_...). Shown this once.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("CreatedWebhook");

export const CreateWebhookSchema = z
  .strictObject({
    url: Url,
    events: z.array(EventPattern).max(50).optional(),
    description: Description.optional(),
  })
  .openapi("CreateWebhook");

export const UpdateWebhookSchema = z
  .strictObject({
    url: Url.optional(),
    events: z.array(EventPattern).max(50).optional(),
    enabled: z.boolean().optional(),
    description: Description.optional(),
  })
  .openapi("UpdateWebhook");

export const DeliverySchema = z
  .object({
    id: Uuid,
    webhookId: Uuid,
    eventId: Uuid,
    eventType: z.string(),
    changeVersion: z.number().int().nullable(),
    attempt: z.number().int().openapi({ description: "1 for the first try, then each retry." }),
    outcome: z.enum(["succeeded", "retrying", "failed"]),
    responseStatus: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    responseExcerpt: z.string().nullable().openapi({ description: "At most the first 200 characters the receiver answered." }),
    nextRetryAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi("WebhookDelivery");

export const ListWebhooksQuery = z.strictObject(pageQuery);

export const DeliveryParams = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" } }),
  deliveryId: Uuid.openapi({ param: { name: "deliveryId", in: "path" } }),
});

export type CreateWebhookInput = z.infer<typeof CreateWebhookSchema>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookSchema>;
