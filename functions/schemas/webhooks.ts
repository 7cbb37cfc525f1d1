import { z } from "@hono/zod-openapi";
import { EVENT_RESOURCES } from "../../domain/events.ts";
import { DELIVERY_OUTCOMES } from "../../domain/records.ts";
import { REPLAY_MAX_SPAN } from "../../services/webhook-replay.ts";
import type { WebhookRecord } from "../../services/webhooks.ts";
import { Description, InstantQuery, Timestamp, Uuid, noNul, pageQuery, publicRecord, recordFields } from "./common.ts";
import { EventPattern } from "./events.ts";

const Url = z.string().min(8).max(2048).refine(noNul).openapi({ example: "https://example.com/hooks/opsroom" });

export const WebhookSchema = publicRecord<WebhookRecord>()(
  z
    .object({
      ...recordFields,
      url: z.string(),
      description: z.string().nullable(),
      events: z.array(z.string()).openapi({ description: "Patterns; empty means every event the webhook may see." }),
      projectId: Uuid.nullable().openapi({
        description:
          "Only this project's own events and those of its milestones, tasks, risks, issues and financial entries; null: every project.",
      }),
      excludeOwn: z.boolean().openapi({
        description: "Leave out the changes made by the key or the person that registered the webhook (a two-way sync's own echo).",
      }),
      scopes: z.array(z.string()).openapi({
        description:
          "The read scopes of the key that registered it: what it may see. Changing, testing or redelivering it, or reading its deliveries, needs every one of them.",
      }),
      enabled: z.boolean(),
      ordered: z.boolean().openapi({
        description:
          "Event N+1 is not sent before N is delivered or finally given up: one request at a time, and a failing event holds back the rest until it succeeds or its retries run out.",
      }),
      createdByKeyId: Uuid.nullable().openapi({
        description:
          "The API key that registered it. The webhook belongs to the organisation and keeps delivering after that key is revoked.",
      }),
      createdByUserId: Uuid.nullable().openapi({
        description:
          "The person who registered it in the settings area (then createdByKeyId is null). It sees what their role could read then.",
      }),
      createdByInstallationId: Uuid.nullable().openapi({
        description: "The installation of an OAuth application that registered it: it stops when the application is uninstalled.",
      }),
      createdByApplicationId: Uuid.nullable().openapi({
        description: "That installation's application (excludeOwn leaves out its changes).",
      }),
      disabledReason: z.string().nullable().openapi({ description: "Why deliveries stopped, e.g. the receiver answered 410." }),
      previousSecretExpiresAt: Timestamp.nullable().openapi({
        description: "After a rotation: until when deliveries are also signed with the secret it replaced; null if it was never rotated.",
      }),
      lastDeliveredChangeVersion: z.number().int().nullable().openapi({
        description:
          "The highest changeVersion delivered successfully; null before any. A high-water mark: an unordered webhook may still be retrying an earlier event.",
      }),
    })
    .openapi("Webhook"),
);

export const CreatedWebhookSchema = WebhookSchema.extend({
  secret: z
    .string()
    .openapi({ description: "The signing secret (whsec_...). Shown this once.", example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }),
}).openapi("CreatedWebhook");

/** What a caller sets, on create and on change: the filter (domain/event-filter.ts) and how it is delivered. */
const settings = {
  events: z.array(EventPattern).max(50).optional(),
  projectId: Uuid.nullable()
    .optional()
    .openapi({ description: "A project of the organisation (400 invalid_reference otherwise); null: every project." }),
  excludeOwn: z.boolean().optional().openapi({ description: "Default false." }),
  ordered: z.boolean().optional().openapi({ description: "Default false." }),
  description: Description.optional(),
};

export const CreateWebhookSchema = z.strictObject({ url: Url, ...settings }).openapi("CreateWebhook");

export const UpdateWebhookSchema = z
  .strictObject({ url: Url, enabled: WebhookSchema.shape.enabled, ...settings })
  .partial()
  .openapi("UpdateWebhook");

export const RotateSecretSchema = z
  .strictObject({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(604_800)
      .default(86_400)
      .openapi({ description: "How long the replaced secret keeps signing deliveries too, 0 to 604800 (7 days); default 86400." }),
  })
  .openapi("RotateWebhookSecret");

export const ReplaySchema = z
  .strictObject({
    after: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).openapi({ description: "Replay the events after this changeVersion." }),
    until: z
      .number()
      .int()
      .min(1)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ description: "Up to and including this changeVersion; default the organisation's current one." }),
  })
  .openapi("ReplayWebhook");

export const ReplayedSchema = z
  .object({
    webhookId: Uuid,
    after: z.number().int(),
    until: z.number().int(),
    queued: z
      .number()
      .int()
      .openapi({
        description: `Events queued: those of the range the webhook would have received. A range spans at most ${REPLAY_MAX_SPAN} changeVersions.`,
      }),
  })
  .openapi("WebhookReplay");

export const DeliverySchema = z
  .object({
    id: Uuid,
    webhookId: Uuid,
    eventId: Uuid,
    eventType: z.string(),
    changeVersion: z.number().int().nullable(),
    attempt: z.number().int().openapi({ description: "1 for the first try, then each retry." }),
    outcome: z.enum(DELIVERY_OUTCOMES),
    responseStatus: z.number().int().nullable(),
    durationMs: z.number().int().nullable(),
    error: z.string().nullable(),
    responseExcerpt: z.string().nullable().openapi({ description: "At most the first 200 characters the receiver answered." }),
    nextRetryAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi("WebhookDelivery");

export const ListWebhooksQuery = z.strictObject(pageQuery);

/** An event type as deliveries record it: "<resource>.<action>", or webhook.test. */
const EventType = z
  .string()
  .max(100)
  .refine(
    (type) => /^[a-zA-Z]+\.[a-z]+$/.test(type) && [...EVENT_RESOURCES, "webhook"].includes(type.split(".")[0]!),
    "must be an event type such as task.updated",
  )
  .openapi({ example: "task.updated" });

export const DeliveriesQuery = z.strictObject({
  ...pageQuery,
  outcome: z.enum(DELIVERY_OUTCOMES).optional().openapi({ description: "Only the attempts with this outcome." }),
  eventType: EventType.optional().openapi({ description: "Only the attempts of this event type." }),
  since: InstantQuery.optional().openapi({ description: "Only attempts made at or after this instant." }),
});

export const DeliveryParams = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" } }),
  deliveryId: Uuid.openapi({ param: { name: "deliveryId", in: "path" }, description: "The delivery's id (GET .../deliveries)." }),
});

export type CreateWebhookInput = z.infer<typeof CreateWebhookSchema>;
export type UpdateWebhookInput = z.infer<typeof UpdateWebhookSchema>;
