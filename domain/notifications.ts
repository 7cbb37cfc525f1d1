// Notifications (docs/notifications.md): who is told of a change (subscriptions), what kind of
// notification it is, and how each person wants each kind (in the inbox, by mail at once, in a
// daily digest, or not at all). The statements (db/statements/notifications.ts) apply these; the
// words live here so that the API, the mails and the console say the same.

/**
 * What a notification is about, most specific first: a person assigned a task, mentioned in a
 * comment, a comment on something they follow, or another change to it.
 */
export const NOTIFICATION_KINDS = ["assigned", "mentioned", "commented", "changed"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** The events that may notify: of the followable records, and new comments (on a task). */
export const NOTIFYING_EVENT = /^(task|project|risk)\.|^comment\.created$/;

/** How a kind reaches a person by mail: each at once, gathered in one mail each morning, or never. */
export const EMAIL_MODES = ["immediate", "digest", "none"] as const;
export type EmailMode = (typeof EMAIL_MODES)[number];

export interface KindPreference {
  email: EmailMode;
  /** Shown in the inbox and live on the person's socket. */
  inApp: boolean;
}
export type NotificationPreferences = Record<NotificationKind, KindPreference>;

/** What a person who chose nothing gets: what is addressed to them at once, the rest in the morning's digest. */
export const DEFAULT_PREFERENCES: NotificationPreferences = {
  assigned: { email: "immediate", inApp: true },
  mentioned: { email: "immediate", inApp: true },
  commented: { email: "digest", inApp: true },
  changed: { email: "digest", inApp: true },
};

/** The local hour (in the person's time zone) the daily digest is sent after. */
export const DIGEST_HOUR = 8;

/** The records a person follows (by hand, or by being their assignee, creator, commenter or mentioned). */
export const FOLLOWABLE = ["task", "project", "risk"] as const;
export type Followable = (typeof FOLLOWABLE)[number];

/** Why a person follows a record: it was theirs to follow by what they did, or by hand. */
export const SUBSCRIPTION_REASONS = ["assignee", "creator", "commenter", "mentioned", "manual"] as const;
export type SubscriptionReason = (typeof SUBSCRIPTION_REASONS)[number];

/**
 * The mention syntax a comment's body carries: `@[Name](user:<user id>)`. An id, not a name, so a
 * renamed person still matches; the name is only what readers see. The console writes it when a
 * member is picked after typing @; an integrator writes it with GET /v1/settings/members' ids.
 * A mention of someone who is not a member of the organisation notifies no one.
 */
export const MENTION_PATTERN = String.raw`@\[[^\]\n]{0,200}\]\(user:([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\)`;

/** The ids a body mentions, once each, in order. */
export function mentionedIds(body: string): string[] {
  return [...new Set([...body.matchAll(new RegExp(MENTION_PATTERN, "g"))].map((m) => m[1]!.toLowerCase()))];
}

/** How a mention is written: what the console puts in a comment for a picked member. */
export const mentionOf = (person: { id: string; name: string }) => `@[${person.name.replace(/[\]\n]/g, " ")}](user:${person.id})`;

/** The body text with each mention shown as @Name. */
export const withMentionsAsNames = (body: string) =>
  body.replace(new RegExp(MENTION_PATTERN, "g"), (m) => `@${/^@\[([^\]]*)\]/.exec(m)![1]}`);

/** A time zone the platform knows (IANA name), as preferences take it. */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
