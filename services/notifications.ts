import { dueDigests, nextDigestDue } from "../db/statements/notification-digests.ts";
import type { Notification } from "../db/statements/notification-inbox.ts";
import {
  deriveNotifications,
  markPushed,
  pendingMail,
  queueNotificationMails,
  unpushed,
  type DerivedNotification,
  type EventsToDerive,
} from "../db/statements/notifications.ts";
import { DIGEST_HOUR } from "../domain/notifications.ts";
import type { ServiceContext } from "./context.ts";
import { deliverMail } from "./mail.ts";
import { digestMail, notificationMail } from "./notification-mail.ts";

// Notifications after a write (docs/notifications.md "How a change becomes notifications"): the
// write committed its events; after the answer one statement derives their notifications, then
// their mails are queued (one statement), their people's rooms told (live), and the mails sent.
// Each step is idempotent, and the sweep (notificationSweep) repeats whatever a request left: the
// events not yet derived, the mails not yet queued, the pushes no room took, and the digests due.

type NotifyContext = Pick<ServiceContext, "db" | "rooms" | "mailer" | "notificationLinks">;

/** Derives the notifications of `which` events and delivers them; answers how many were made. */
export async function notify(ctx: NotifyContext, which: EventsToDerive): Promise<number> {
  const { notifications } = await deriveNotifications(ctx.db, which);
  if (notifications.length) await deliverNotifications(ctx, notifications);
  return notifications.length;
}

/** Queues the mails of those notifications mailed at once, pushes the shown ones live, then sends the mails. */
async function deliverNotifications(ctx: NotifyContext, derived: DerivedNotification[]): Promise<void> {
  const mailIds = await queueImmediateMail(ctx, derived);
  await push(
    ctx,
    derived.filter((d) => d.shown),
  ).catch((error: unknown) => warn("could not push notifications live", { cause: String(error) }));
  if (mailIds.length) await deliverMail({ db: ctx.db, mailer: ctx.mailer ?? null }, { ids: mailIds });
}

async function queueImmediateMail(ctx: NotifyContext, derived: DerivedNotification[]): Promise<string[]> {
  const links = ctx.notificationLinks;
  const mailed = derived.filter((d) => d.mailState === "pending");
  if (!links || mailed.length === 0) return [];
  return queueNotificationMails(ctx.db, await Promise.all(mailed.map((d) => notificationMail(links, d, d.notification))));
}

/** Tells each organisation's room the notifications of its people; marks those a room took. */
async function push(ctx: NotifyContext, items: Array<{ orgId: string; userId: string; notification: Notification }>): Promise<void> {
  const byOrg = new Map<string, typeof items>();
  for (const item of items) byOrg.set(item.orgId, [...(byOrg.get(item.orgId) ?? []), item]);
  for (const [orgId, batch] of byOrg) {
    await ctx.rooms.tell(orgId, {
      notifications: batch.map(({ userId, notification }) => ({ userId, notification: { ...notification } })),
    });
    await markPushed(
      ctx.db,
      batch.map((b) => b.notification.id),
    );
  }
}

const warn = (message: string, facts: Record<string, unknown>) => console.warn(JSON.stringify({ level: "warn", message, ...facts }));

/** Rows the sweep takes of each part at a time. */
const SWEEP_PAGE = 200;

/**
 * The sweep's part: derives the events no request derived (older than `graceSeconds`), queues the
 * mails no request queued, pushes again what no room took, and queues the digests due. Each part
 * runs whatever became of the others.
 */
export async function notificationSweep(ctx: NotifyContext, graceSeconds = 10) {
  const failing = (what: string) => (error: unknown) => {
    warn(`sweep could not ${what}`, { cause: String(error) });
    return 0;
  };
  let derived = 0;
  // Page after page while a whole page of events was marked (past 20 pages, the next sweep goes on).
  for (let page = 0; page < 20; page++) {
    const { marked, notifications } = await deriveNotifications(ctx.db, { graceSeconds, limit: SWEEP_PAGE }).catch((error: unknown) => {
      failing("derive notifications")(error);
      return { marked: 0, notifications: [] };
    });
    derived += notifications.length;
    if (notifications.length) await deliverNotifications(ctx, notifications).catch(failing("deliver notifications"));
    if (marked < SWEEP_PAGE) break;
  }
  const mailed = await pendingMail(ctx.db, graceSeconds, SWEEP_PAGE)
    .then((rows) => queueImmediateMail(ctx, rows))
    .then((ids) => ids.length)
    .catch(failing("queue notification mail"));
  const pushed = await unpushed(ctx.db, graceSeconds, SWEEP_PAGE)
    .then(async (rows) => (rows.length ? (await push(ctx, rows), rows.length) : 0))
    .catch(failing("push notifications"));
  const digests = await queueDigests(ctx).catch(failing("queue digests"));
  return { derived, mailed, pushed, digests };
}

/** When the next digest falls due, or null (db/statements/notification-digests.ts). */
export const digestDueAt = (ctx: Pick<NotifyContext, "db">) => nextDigestDue(ctx.db, DIGEST_HOUR);

async function queueDigests(ctx: NotifyContext): Promise<number> {
  const links = ctx.notificationLinks;
  if (!links) return 0;
  const due = await dueDigests(ctx.db, DIGEST_HOUR, SWEEP_PAGE);
  const ids = await queueNotificationMails(ctx.db, await Promise.all(due.map((d) => digestMail(links, d, d.notifications))));
  return ids.length;
}
