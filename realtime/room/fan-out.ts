import type * as Party from "partykit/server";
import type { OpsEvent } from "../../domain/events.ts";
import { hasAny, orderedKey } from "../storage.ts";
import { eventOf, type StoredEvent } from "../stored-event.ts";
import type { WebhookDispatcher } from "../webhooks/dispatcher.ts";

// The hand-over of delivered events to the webhooks. The ordering writes each event it delivers
// under `fanout:<changeVersion>`, in the same batch as the watermark, so none is skipped; the alarm
// turns them into webhook jobs beside later publishes, not in line with them: a fan-out may wait
// on the API for the webhooks, and later events go to the sockets meanwhile.

const FANOUT_PREFIX = "fanout:";

/** Where a delivered event waits to be turned into webhook jobs. */
export const fanOutKey = (event: OpsEvent) => orderedKey(FANOUT_PREFIX, event.changeVersion);

/** Whether delivered events wait to be turned into webhook jobs. */
export function hasFanOut(storage: Party.Storage): Promise<boolean> {
  return hasAny(storage, FANOUT_PREFIX);
}

/**
 * Turns delivered events into webhook jobs; kept for the next alarm if the webhooks cannot be
 * loaded. Answers false only then. It takes only what the ordering wrote and deletes only the keys
 * it read, and alarms never overlap, so each event becomes its jobs exactly once.
 */
export async function fanOut(storage: Party.Storage, webhooks: WebhookDispatcher): Promise<boolean> {
  try {
    for (;;) {
      const limit = await webhooks.fanoutBatchSize().catch(() => null);
      if (limit === null) return false;
      const page = await storage.list<StoredEvent>({ prefix: FANOUT_PREFIX, limit });
      if (page.size === 0) return true;
      // The jobs and the removal of their events in one batch, written without holding back the
      // sockets of events published meanwhile...
      if (!(await webhooks.queueFor(new Map([...page].map(([key, value]) => [key, eventOf(value)]))))) return false;
    }
  } finally {
    // ...and durable before the drain sends any of them.
    await storage.sync();
  }
}
