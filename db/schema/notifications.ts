import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { EventActor } from "../../domain/events.ts";
import { FOLLOWABLE, NOTIFICATION_KINDS, SUBSCRIPTION_REASONS, type NotificationPreferences } from "../../domain/notifications.ts";
import { checkOneOf, id, orgId } from "./columns.ts";
import { organisations } from "./organisations.ts";
import { users } from "./people.ts";

const time = () => timestamp({ withTimezone: true, precision: 3 });

// Notifications (docs/notifications.md). Settings of a person, not records of the organisation:
// they move no changeVersion and emit no event. Each is derived from an event of the outbox, after
// the write's commit, by one idempotent statement (db/statements/notifications.ts deriveNotifications).

/** Who follows which record: by what they did (assignee, creator, commenter, mentioned) or by hand. */
export const subscriptions = pgTable(
  "subscriptions",
  {
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    recordType: text({ enum: FOLLOWABLE }).notNull(),
    recordId: uuid().notNull(),
    reason: text({ enum: SUBSCRIPTION_REASONS }).notNull(),
    // false: unfollowed by hand; what the person does later does not follow it again.
    following: boolean().notNull().default(true),
    createdAt: time().notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.orgId, t.recordType, t.recordId, t.userId] }),
    // A person's follows (their records' page, the member's removal).
    index("subscriptions_user_idx").on(t.userId),
    checkOneOf("subscriptions_record_type_valid", t.recordType, FOLLOWABLE),
    checkOneOf("subscriptions_reason_valid", t.reason, SUBSCRIPTION_REASONS),
  ],
);

/** How a notification's mail goes: queued at once (pending until it is), waiting for the digest, in one, or none. */
export const NOTIFICATION_MAIL_STATES = ["pending", "queued", "digest", "digested", "none"] as const;

/** One notification of one person about one event. */
export const notifications = pgTable(
  "notifications",
  {
    id: id(),
    orgId: orgId().references(() => organisations.id, { onDelete: "cascade" }),
    userId: uuid()
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    eventId: uuid().notNull(),
    kind: text({ enum: NOTIFICATION_KINDS }).notNull(),
    // A copy of what the event said, so a notification outlives its event's 30 days.
    eventType: text().notNull(),
    changeVersion: bigint({ mode: "number" }).notNull(),
    actor: jsonb().$type<EventActor>().notNull(),
    recordType: text().notNull(),
    recordId: uuid().notNull(),
    title: text().notNull(),
    excerpt: text(),
    fields: jsonb().$type<string[]>().notNull().default([]),
    // Shown in the inbox (the person's in-app preference for the kind when it was made).
    shown: boolean().notNull().default(true),
    mailState: text({ enum: NOTIFICATION_MAIL_STATES }).notNull(),
    readAt: time(),
    // Set when the person's room took it for their sockets; null ones are pushed again by the sweep.
    pushedAt: time(),
    createdAt: time().notNull().defaultNow(),
  },
  (t) => [
    // One notification per person and event, whoever derives it (the request, or the sweep after it).
    uniqueIndex("notifications_event_user_key").on(t.eventId, t.userId),
    // The inbox: a person's, unread first, newest first.
    index("notifications_inbox_idx").on(t.userId, t.orgId, sql`(${t.readAt} is null) desc`, t.createdAt.desc(), t.id.desc()),
    // The sweep's work: mail not yet queued, digests due, pushes not yet taken.
    index("notifications_mail_idx")
      .on(t.mailState, t.createdAt)
      .where(sql`${t.mailState} in ('pending', 'digest')`),
    index("notifications_unpushed_idx")
      .on(t.createdAt)
      .where(sql`${t.pushedAt} is null and ${t.shown}`),
    checkOneOf("notifications_kind_valid", t.kind, NOTIFICATION_KINDS),
    checkOneOf("notifications_mail_state_valid", t.mailState, NOTIFICATION_MAIL_STATES),
  ],
);

/** A person's choices: per kind, and their time zone (the digest's morning). */
export const notificationSettings = pgTable("notification_settings", {
  userId: uuid()
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  preferences: jsonb().$type<Partial<NotificationPreferences>>().notNull().default({}),
  timeZone: text().notNull().default("UTC"),
  // The last digest sent: the next goes after the next local morning.
  digestSentAt: time(),
  updatedAt: time().notNull().defaultNow(),
});
