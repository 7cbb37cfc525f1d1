import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/notification-inbox.ts";
import { unsubscribe } from "../db/statements/notifications.ts";
import { verifyUnsubscribe, type Unsubscribe } from "../domain/crypto/unsubscribe-token.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { Followable, NotificationPreferences } from "../domain/notifications.ts";
import type { Scope } from "../domain/scopes.ts";
import type { Call } from "./context.ts";
import { settleCaller } from "./settle.ts";

// A person's notifications, follows and preferences (docs/notifications.md): the API's verbs, each
// one statement that checks the session with the work. The unsubscribe links of notification mails
// need no session: their token is signed for the person and the kind.

export type { Notification, NotificationSettings, Following } from "../db/statements/notification-inbox.ts";

const encodeCursor = (p: statements.InboxPosition) =>
  Buffer.from(JSON.stringify([p.unread ? 1 : 0, p.createdAt, p.id])).toString("base64url");

function decodeCursor(cursor: string): statements.InboxPosition {
  try {
    const [unread, createdAt, id] = JSON.parse(Buffer.from(cursor, "base64url").toString()) as [number, string, string];
    if ((unread === 0 || unread === 1) && !Number.isNaN(Date.parse(createdAt)) && /^[0-9a-f-]{36}$/.test(id))
      return { unread: unread === 1, createdAt, id };
  } catch {
    // answered below
  }
  throw new DomainError("invalid_field", "cursor is not one this list gave", { field: "cursor" });
}

/** The caller's notifications: unread first, then newest; a page, the next page's cursor, and how many are unread. */
export async function listNotifications({
  ctx,
  input,
}: Call<{ limit: number; cursor?: string | undefined; unread?: boolean | undefined }>) {
  const outcome = await statements.listNotifications(ctx.db, ctx.actor, {
    limit: input.limit,
    after: input.cursor ? decodeCursor(input.cursor) : null,
    unreadOnly: input.unread ?? false,
  });
  settleCaller(outcome.caller, ctx, null);
  const last = outcome.notifications.at(-1);
  const nextCursor = outcome.hasMore && last ? encodeCursor({ unread: !last.read, createdAt: last.createdAt, id: last.id }) : null;
  return { notifications: outcome.notifications, nextCursor, unread: outcome.unread };
}

/** Marks one of the caller's notifications read. */
export async function markNotificationRead({ ctx, input }: Call<{ id: string }>) {
  const outcome = await statements.markRead(ctx.db, ctx.actor, input.id);
  settleCaller(outcome.caller, ctx, null);
  if (!outcome.found) throw notFound("notification");
  return outcome.notification!;
}

/** Marks every unread notification of the caller read; answers how many. */
export async function markAllNotificationsRead({ ctx }: Call<unknown>) {
  const outcome = await statements.markRead(ctx.db, ctx.actor, null);
  settleCaller(outcome.caller, ctx, null);
  return { marked: outcome.marked };
}

/** Follows or unfollows a task, project or risk by hand, or reads whether the caller follows it (`following` null; its read scope needed). */
export async function setFollowing({ ctx, input }: Call<{ recordType: Followable; id: string; following: boolean | null; scope: Scope }>) {
  const outcome = await statements.setFollowing(ctx.db, ctx.actor, {
    recordType: input.recordType,
    recordId: input.id,
    following: input.following,
    scope: input.scope,
  });
  settleCaller(outcome.caller, ctx, input.scope);
  if (!outcome.found) throw notFound(input.recordType);
  return outcome.subscription!;
}

/** Whether the caller follows a task, project or risk, and why (its read scope needed). */
export const readFollowing = ({ ctx, input }: Call<{ recordType: Followable; id: string; scope: Scope }>) =>
  setFollowing({ ctx, input: { ...input, following: null } });

/** The caller's preferences and time zone; changed first when `change` is given. */
export async function notificationSettings({
  ctx,
  input,
}: Call<{ preferences?: Partial<NotificationPreferences> | undefined; timeZone?: string | undefined } | null>) {
  const outcome = await statements.notificationSettings(ctx.db, ctx.actor, input);
  settleCaller(outcome.caller, ctx, null);
  return outcome.settings;
}

/** What an unsubscribe token names, if it holds. */
export const unsubscribeTarget = (secret: string, token: string): Promise<Unsubscribe | null> => verifyUnsubscribe(secret, token);

/** Turns off the mail a verified token names. */
export const applyUnsubscribe = (ctx: { db: Database }, u: Unsubscribe) => unsubscribe(ctx.db, u.userId, u.target);
