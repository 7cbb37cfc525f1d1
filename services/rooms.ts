import { markPublished } from "../db/statements/engine/events.ts";
import type { OpsEvent } from "../domain/events.ts";
import { NOTIFYING_EVENT } from "../domain/notifications.ts";
import type { ServiceContext } from "./context.ts";

// Publishing to the organisations' realtime rooms (reached through services/room-client.ts). A
// write commits its event first; publishing
// happens after the answer, and the room's acknowledgement is recorded on the event row (by the
// Worker's next write statement: db/statements/engine/acknowledgements.ts). What is not recorded (the
// room down, the Worker evicted mid-publish, no write since) the sweep sends again; the room drops
// what it has already delivered, so a second publish is harmless.

/**
 * Sends events of one organisation to its room and records the changeVersions it acknowledged:
 * with the handle's next write, or at once (`recordNow`: the sweep, whose progress it is).
 */
export async function publish(
  ctx: Pick<ServiceContext, "db" | "rooms">,
  orgId: string,
  events: OpsEvent[],
  options: { recordNow?: boolean } = {},
): Promise<void> {
  const { acknowledged } = (await ctx.rooms.tell(orgId, { events })) as { acknowledged?: unknown };
  if (!Array.isArray(acknowledged)) throw new Error(`room ${orgId} answered without acknowledged`);
  await markPublished(ctx.db, orgId, acknowledged, { now: options.recordNow ?? false });
}

/** The events a write committed, in changeVersion order: its cascades' first, its own last. */
export const eventsOf = (result: { event: OpsEvent | null; cascaded?: OpsEvent[] | undefined }): OpsEvent[] => [
  ...(result.cascaded ?? []),
  ...(result.event ? [result.event] : []),
];

/** What the after-commit effects need: a mailer and the notification links only where the caller has them. */
type AfterCommitContext = Pick<ServiceContext, "db" | "rooms" | "defer"> & Partial<Pick<ServiceContext, "mailer" | "notificationLinks">>;

/**
 * After a write commits: its events go to the room after the answer, and their notifications are
 * derived (services/notifications.ts). A failure of either is left to the sweep.
 */
export function publishAfterCommit(ctx: AfterCommitContext, result: { event: OpsEvent | null; cascaded?: OpsEvent[] | undefined }): void {
  const events = eventsOf(result);
  if (events.length === 0) return;
  ctx.defer(() => publish(ctx, events[0]!.orgId, events));
  notifyAfterCommit(ctx, events);
}

/**
 * After a write commits: its events' notifications, after the answer (services/notifications.ts,
 * loaded then: most requests never need it). An event that may notify no one is marked by the
 * sweep, many at a time: no statement here. A failure is left to the sweep.
 */
export function notifyAfterCommit(ctx: AfterCommitContext, events: OpsEvent[]): void {
  const ids = events.filter((e) => NOTIFYING_EVENT.test(e.type)).map((e) => e.id);
  if (ids.length) ctx.defer(async () => (await import("./notifications.ts")).notify(ctx, { ids }));
}
