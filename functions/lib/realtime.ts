import type { Context } from "hono";
import { databaseFor } from "./database.ts";
import type { Database } from "../../db/client.ts";
import { markPublished, pruneEvents, unpublishedEvents } from "../../db/queries/events.ts";
import { pruneIdempotencyKeys } from "../../db/queries/idempotency.ts";
import type { AppEnv, Bindings } from "../env.ts";
import type { OpsEvent } from "./events.ts";

// Publishing the outbox to the organisation's room. A write commits its event first; publishing
// happens after the response, and the room's acknowledgement is recorded on the event row. What
// is not acknowledged (room down, Worker evicted mid-publish) the cron sweep sends again. The
// room drops what it has already delivered, so a second publish is harmless.

const PUBLISH_TIMEOUT_MS = 5_000;
/** Events per publish in the sweep: a bounded request, and progress recorded as each batch is acknowledged. */
const SWEEP_BATCH = 250;

/** What the Worker tells a room: events to deliver, that its webhooks changed, or one delivery. */
export type RoomMessage =
  | { events: OpsEvent[] }
  | { webhooksChanged: true }
  | { deliver: { webhookId: string; event: OpsEvent } };

/** Posts a message to the organisation's room with the shared secret; throws unless it took it. */
export async function tellRoom(env: Bindings, orgId: string, message: RoomMessage): Promise<unknown> {
  if (!env.REALTIME_URL || !env.REALTIME_SECRET) throw new Error("realtime is not configured");
  const response = await fetch(`${env.REALTIME_URL}/parties/v1/${orgId}`, {
    method: "POST",
    headers: { authorization: `Bearer ${env.REALTIME_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify(message),
    signal: AbortSignal.timeout(PUBLISH_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`room ${orgId} answered ${response.status}`);
  return response.json();
}

/** Sends events of one organisation to its room; answers the changeVersions the room acknowledged. */
export async function publishToRoom(env: Bindings, orgId: string, events: OpsEvent[]): Promise<number[]> {
  if (!env.REALTIME_URL || !env.REALTIME_SECRET) return [];
  const { acknowledged } = (await tellRoom(env, orgId, { events })) as { acknowledged: number[] };
  return acknowledged;
}

/** Work to finish after the response; a failure is logged, not thrown at the caller. */
export function afterResponse(c: Context<AppEnv>, work: Promise<unknown>): void {
  c.executionCtx.waitUntil(
    work.catch((error: unknown) => console.warn(JSON.stringify({ level: "warn", requestId: c.var.requestId, message: String(error) }))),
  );
}

async function publishAndRecord(env: Bindings, db: Database, orgId: string, events: OpsEvent[]): Promise<void> {
  await markPublished(db, orgId, await publishToRoom(env, orgId, events));
}

/** After a write commits: publish its event off the response path. Failure is left to the sweep. */
export function publishAfterCommit(c: Context<AppEnv>, event: OpsEvent): void {
  const env = c.env;
  c.executionCtx.waitUntil(
    (async () => {
      const db = databaseFor(env);
      try {
        await publishAndRecord(env, db, event.orgId, [event]);
      } catch (error) {
        console.warn(JSON.stringify({ level: "warn", message: "publish failed; the sweep will retry", event: event.id, cause: String(error) }));
      } finally {
        await db.close().catch(() => {});
      }
    })(),
  );
}

/** The cron sweep: re-publishes what no room acknowledged, per organisation in changeVersion order. */
export async function sweepUnpublished(env: Bindings, options: { graceSeconds?: number } = {}): Promise<{ published: number; failed: number }> {
  const db = databaseFor(env);
  try {
    const events = await unpublishedEvents(db, options.graceSeconds ?? 10, 1000);
    const byOrg = new Map<string, OpsEvent[]>();
    for (const event of events) byOrg.set(event.orgId, [...(byOrg.get(event.orgId) ?? []), event]);
    let published = 0;
    let failed = 0;
    for (const [orgId, orgEvents] of byOrg) {
      let sent = 0;
      try {
        // In batches, in order: a batch the room took stays acknowledged if a later one fails.
        while (sent < orgEvents.length) {
          const batch = orgEvents.slice(sent, sent + SWEEP_BATCH);
          await publishAndRecord(env, db, orgId, batch);
          sent += batch.length;
        }
      } catch (error) {
        failed += orgEvents.length - sent;
        console.warn(JSON.stringify({ level: "warn", message: "sweep publish failed", orgId, cause: String(error) }));
      }
      published += sent;
    }
    await pruneEvents(db);
    await pruneIdempotencyKeys(db);
    return { published, failed };
  } finally {
    await db.close().catch(() => {});
  }
}
