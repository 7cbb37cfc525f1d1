import { z } from "@hono/zod-openapi";
import { EMAIL_MODES, isTimeZone, NOTIFICATION_KINDS } from "../../domain/notifications.ts";
import type { Assert, Equal } from "../../domain/type-equality.ts";
import type { Following, Notification, NotificationSettings } from "../../services/notification-inbox.ts";
import { pageQuery, BooleanQuery, Timestamp, Uuid } from "./common.ts";
import { ActorSchema } from "./events.ts";

// The wire shapes of notifications, follows and preferences (docs/notifications.md), answered by
// functions/routes/notifications.ts.

const Kind = z.enum(NOTIFICATION_KINDS).openapi({
  description:
    "assigned: a task given to you; mentioned: @[you](user:id) in a comment; commented: a comment on what you follow; changed: any other change to it.",
});

export const NotificationSchema = z
  .object({
    id: Uuid,
    kind: Kind,
    event: z.object({ id: Uuid, type: z.string().openapi({ example: "task.updated" }), changeVersion: z.number().int() }),
    actor: ActorSchema,
    record: z.object({
      type: z.string().openapi({ description: "task, project or risk.", example: "task" }),
      id: Uuid,
      title: z.string().openapi({ example: "Pour the east footing" }),
    }),
    excerpt: z.string().nullable().openapi({ description: "A comment's first 280 characters, mentions shown as @Name." }),
    fields: z.array(z.string()).openapi({ description: "The fields a change changed.", example: ["status"] }),
    read: z.boolean(),
    readAt: Timestamp.nullable(),
    createdAt: Timestamp,
  })
  .openapi("Notification");
type _NotificationAgrees = Assert<Equal<z.infer<typeof NotificationSchema>, Notification>>;

export const NotificationListQuery = z.object({
  ...pageQuery,
  unread: BooleanQuery.optional().openapi({ description: "true: only unread notifications." }),
});

export const MarkedSchema = z.object({ marked: z.number().int().openapi({ description: "Notifications marked read.", example: 3 }) });

export const FollowingSchema = z
  .object({
    recordType: z.enum(["task", "project", "risk"]),
    recordId: Uuid,
    following: z.boolean(),
    reason: z.string().nullable().openapi({ description: "Why you follow it: assignee, creator, commenter, mentioned or manual." }),
  })
  .openapi("Following");
type _FollowingAgrees = Assert<Equal<z.infer<typeof FollowingSchema>, Following>>;

const KindPreference = z.strictObject({
  email: z.enum(EMAIL_MODES).openapi({ description: "immediate: a mail each; digest: in one mail each local morning; none." }),
  inApp: z.boolean().openapi({ description: "In the inbox (GET /v1/notifications) and live on your realtime connection." }),
});

const TimeZone = z
  .string()
  .max(100)
  .refine(isTimeZone, "must be an IANA time zone, such as Europe/Berlin")
  .openapi({ description: "Your time zone (IANA): the digest goes after 08:00 there.", example: "Europe/Berlin" });

export const NotificationSettingsSchema = z
  .object({
    preferences: z.object(
      Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, KindPreference])) as Record<
        (typeof NOTIFICATION_KINDS)[number],
        typeof KindPreference
      >,
    ),
    timeZone: z.string(),
  })
  .openapi("NotificationSettings");
type _SettingsAgree = Assert<Equal<z.infer<typeof NotificationSettingsSchema>, NotificationSettings>>;

export const UpdateNotificationSettingsSchema = z
  .strictObject({
    preferences: z
      .strictObject(
        Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, KindPreference.optional()])) as Record<
          (typeof NOTIFICATION_KINDS)[number],
          z.ZodOptional<typeof KindPreference>
        >,
      )
      .optional(),
    timeZone: TimeZone.optional(),
  })
  .openapi("UpdateNotificationSettings", {
    example: { preferences: { changed: { email: "none", inApp: true } }, timeZone: "Europe/Berlin" },
  });
