import { z } from "@hono/zod-openapi";
import type { Followable } from "../../domain/notifications.ts";
import { RESOURCES } from "../../domain/resources.ts";
import { scopesOf } from "../../domain/resources.ts";
import * as inbox from "../../services/notification-inbox.ts";
import { serviceContext } from "../http/context.ts";
import { envelope, nextLink, recordEnvelope, reply } from "../http/envelope.ts";
import { defineRoute } from "../http/registry.ts";
import { Uuid } from "../schemas/common.ts";
import {
  FollowingSchema,
  MarkedSchema,
  NotificationListQuery,
  NotificationSchema,
  NotificationSettingsSchema,
  UpdateNotificationSettingsSchema,
} from "../schemas/notifications.ts";

// A person's notifications (docs/notifications.md): the inbox, marking read, following records by
// hand, and preferences. A session only: notifications are a person's, and a key is nobody.

const tag = "Notifications";
const IdParams = z.object({ id: Uuid.openapi({ description: "The notification's id (GET /v1/notifications)." }) });

const InboxEnvelope = envelope({
  count: z.number().int(),
  data: z.array(NotificationSchema),
  nextCursor: z.string().nullable().openapi({ description: "Pass as ?cursor= for the next page; null on the last page." }),
  unread: z.number().int().openapi({ description: "Your unread notifications in this organisation (the console's badge).", example: 2 }),
});

const inboxRoutes = [
  defineRoute({
    method: "get",
    path: "/v1/notifications",
    operationId: "listNotifications",
    auth: "session",
    scope: null,
    tag,
    summary: "Your notifications in this organisation: unread first, then newest",
    query: NotificationListQuery,
    response: { schema: InboxEnvelope, description: "A page of notifications, and how many are unread.", headers: ["Link"] },
    verb: inbox.listNotifications,
    async handler(c, { query }) {
      const page = await inbox.listNotifications({ ctx: serviceContext(c), input: query });
      const count = page.notifications.length;
      return {
        body: {
          success: true as const,
          version: "v1" as const,
          message: `${count} ${count === 1 ? "notification" : "notifications"}, ${page.unread} unread`,
          count,
          data: page.notifications,
          nextCursor: page.nextCursor,
          unread: page.unread,
        },
        headers: nextLink(c.req.url, "cursor", page.nextCursor),
      };
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/notifications/{id}/read",
    operationId: "markNotificationRead",
    auth: "session",
    scope: null,
    tag,
    summary: "Mark one of your notifications read",
    params: IdParams,
    response: { schema: recordEnvelope(NotificationSchema), description: "The notification, read." },
    verb: inbox.markNotificationRead,
    async handler(c, { params }) {
      return reply(await inbox.markNotificationRead({ ctx: serviceContext(c), input: { id: params.id } }), "notification read");
    },
  }),
  defineRoute({
    method: "post",
    path: "/v1/notifications/read",
    operationId: "markAllNotificationsRead",
    auth: "session",
    scope: null,
    tag,
    summary: "Mark all your notifications in this organisation read",
    response: { schema: recordEnvelope(MarkedSchema), description: "How many were marked." },
    verb: inbox.markAllNotificationsRead,
    async handler(c) {
      const marked = await inbox.markAllNotificationsRead({ ctx: serviceContext(c), input: null });
      return reply(marked, `${marked.marked} marked read`);
    },
  }),
  defineRoute({
    method: "get",
    path: "/v1/settings/notifications",
    operationId: "getNotificationSettings",
    auth: "session",
    scope: null,
    tag,
    summary: "Your notification preferences (per kind: mail at once, in the daily digest or none; in the inbox) and time zone",
    response: { schema: recordEnvelope(NotificationSettingsSchema), description: "Your preferences." },
    verb: inbox.notificationSettings,
    async handler(c) {
      return reply(await inbox.notificationSettings({ ctx: serviceContext(c), input: null }), "notification preferences");
    },
  }),
  defineRoute({
    method: "patch",
    path: "/v1/settings/notifications",
    operationId: "updateNotificationSettings",
    auth: "session",
    scope: null,
    tag,
    summary: "Change your notification preferences or time zone",
    body: UpdateNotificationSettingsSchema,
    response: { schema: recordEnvelope(NotificationSettingsSchema), description: "Your preferences as changed." },
    verb: inbox.notificationSettings,
    async handler(c, { body }) {
      return reply(await inbox.notificationSettings({ ctx: serviceContext(c), input: body }), "notification preferences changed");
    },
  }),
];

const FOLLOWED: Array<{ recordType: Followable; path: "tasks" | "projects" | "risks"; noun: string }> = [
  { recordType: "task", path: "tasks", noun: "Task" },
  { recordType: "project", path: "projects", noun: "Project" },
  { recordType: "risk", path: "risks", noun: "Risk" },
];

/** GET (am I following), PUT (follow) and DELETE (unfollow) /v1/<records>/{id}/subscription, for tasks, projects and risks. */
const followRoutes = FOLLOWED.flatMap(({ recordType, path, noun }) => {
  const scope = scopesOf(RESOURCES[recordType]).read;
  const params = z.object({ id: Uuid.openapi({ description: `The ${recordType}'s id.` }) });
  const common = { path: `/v1/${path}/{id}/subscription` as const, auth: "session" as const, scope, tag, params };
  const response = (description: string) => ({ schema: recordEnvelope(FollowingSchema), description });
  const read = defineRoute({
    ...common,
    method: "get",
    operationId: `get${noun}Subscription`,
    summary: `Whether you follow a ${recordType}, and why (by hand, or as its assignee, creator, commenter or a person mentioned)`,
    response: response("Whether you follow it."),
    verb: inbox.readFollowing,
    async handler(c, { params }) {
      const following = await inbox.readFollowing({ ctx: serviceContext(c), input: { recordType, id: params.id, scope } });
      return reply(following, following.following ? `you follow this ${recordType}` : `you do not follow this ${recordType}`);
    },
  });
  const write = (following: boolean) =>
    defineRoute({
      ...common,
      method: following ? "put" : "delete",
      operationId: `${following ? "follow" : "unfollow"}${noun}`,
      summary: following
        ? `Follow a ${recordType}: be notified of its changes and comments`
        : `Unfollow a ${recordType}: no more notifications of it but assignments and mentions`,
      response: response("Whether you follow it now."),
      verb: inbox.setFollowing,
      async handler(c, { params }) {
        const input = { recordType, id: params.id, following, scope };
        return reply(
          await inbox.setFollowing({ ctx: serviceContext(c), input }),
          following ? `${recordType} followed` : `${recordType} unfollowed`,
        );
      },
    });
  return [read, write(true), write(false)];
});

export const notificationRoutes = [...inboxRoutes, ...followRoutes];
