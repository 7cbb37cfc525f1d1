import { recentlyRevokedKeys } from "../db/statements/api-keys.ts";
import { pruneAuditEntries } from "../db/statements/audit-log.ts";
import {
  eventsAfter,
  listEvents as listEventsStatement,
  pruneEvents,
  recordHistory as recordHistoryStatement,
  recordPendingAcknowledgements,
  roomStartingPoint,
  unpublishedEvents,
} from "../db/statements/engine/events.ts";
import { pruneIdempotencyKeys } from "../db/statements/engine/idempotency.ts";
import type { Resource } from "../db/statements/engine/resource.ts";
import { AUDIT_RETENTION_DAYS } from "../domain/audit.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import type { EventFilter } from "../domain/event-filter.ts";
import type { OpsEvent } from "../domain/events.ts";
import { endUnauthorisedInstallations, pruneAppTokens, repeatEndedAccess } from "./app-access.ts";
import { subrequestsLeft, type Call, type ServiceContext, type SystemContext } from "./context.ts";
import { publish } from "./rooms.ts";
import { settleCaller } from "./settle.ts";

/**
 * GET /v1/events: the events after a changeVersion that the caller may read and the filter wants,
 * oldest first. Following from before the first event still kept would silently skip changes:
 * 410 resync_required instead, naming where the kept events start.
 */
export async function listEvents({ ctx, input }: Call<{ after: number; limit: number; filter: EventFilter; retentionSeconds: number }>) {
  const { caller, firstKept, ...page } = await listEventsStatement(ctx.db, ctx.actor, input);
  settleCaller(caller, ctx, null);
  assertKeptAfter(input.after, firstKept, "take a fresh snapshot and follow from its changeVersion");
  return page;
}

/** 410 resync_required when the events after `after` start before the first one still kept. */
export function assertKeptAfter(after: number, firstKept: number, remedy: string): void {
  if (after + 1 >= firstKept) return;
  throw new DomainError(
    "resync_required",
    `the events after changeVersion ${after} are no longer kept (the oldest kept is ${firstKept}): ${remedy}`,
    {
      field: "after",
      oldestChangeVersion: firstKept,
    },
  );
}

/** One record's history: its events oldest first, with actor and changes; 404 when the organisation never had it. */
export async function recordHistory({
  ctx,
  input,
}: Call<{
  resource: Pick<Resource, "type" | "readScope" | "table">;
  noun: string;
  id: string;
  after: number;
  limit: number;
  retentionSeconds: number;
}>) {
  const { resource, ...rest } = input;
  const outcome = await recordHistoryStatement(ctx.db, ctx.actor, {
    ...rest,
    type: resource.type,
    scope: resource.readScope,
    table: resource.table,
  });
  settleCaller(outcome.caller, ctx, resource.readScope);
  if (!outcome.known) throw notFound(input.noun);
  return { events: outcome.events, hasMore: outcome.hasMore };
}

/** Where a room with no memory starts, and the events it missed after a gap (the room's own calls). */
export const roomStart = ({ ctx, input }: Call<{ orgId: string }, SystemContext>) => roomStartingPoint(ctx.db, input.orgId);
export const missedEvents = ({ ctx, input }: Call<{ orgId: string; after: number; limit: number }, SystemContext>) =>
  eventsAfter(ctx.db, input.orgId, input.after, input.limit);

/** Events per publish in the sweep: a bounded request, and progress recorded as each batch is acknowledged. */
const SWEEP_BATCH = 250;
/** ...and about this many bytes of JSON: a room takes a publish whole, in memory and storage. */
const SWEEP_BATCH_BYTES = 1024 * 1024;
/** Events the sweep reads at a time (a page also stops at ANSWER_BYTES of them). */
const SWEEP_PAGE = 1000;
/** How long one sweep goes on publishing pages: well inside a cron invocation's limits, and the next sweep carries on. */
const SWEEP_SECONDS = 30;
/** How far back the sweep repeats revocations to the rooms: a few of its one-minute ticks. */
const REVOCATION_REPEAT_SECONDS = 180;
/**
 * Subrequests (functions/subrequests.ts) the sweep keeps as a margin (it once held the four prunes,
 * which now run on a schedule of their own: pruneRetained), whatever the steps before it had to do;
 * and, beyond it, for repeating revocations
 * to the rooms and ending installations. Publishing stops short of both: what it leaves, the next
 * sweep publishes (it starts from the oldest unacknowledged event). 27 of the Free plan's 50 then
 * go to publishing; of the Paid plan's 1,000, 973.
 */
const PRUNE_RESERVE = 7;
const TELL_RESERVE = PRUNE_RESERVE + 20;

type SweepContext = Pick<ServiceContext, "db" | "rooms" | "subrequestsLeft">;

/**
 * Publishes an organisation's events in order, in batches: a batch the room took stays
 * acknowledged if a later one fails. Answers how many were sent, and the failure that stopped it.
 */
async function publishInBatches(ctx: SweepContext, orgId: string, events: OpsEvent[]): Promise<{ sent: number; error?: unknown }> {
  let sent = 0;
  try {
    // A batch is two subrequests (the publish, and recording what the room acknowledged).
    while (sent < events.length && subrequestsLeft(ctx) > TELL_RESERVE + 2) {
      const batch = nextBatch(events, sent);
      await publish(ctx, orgId, batch, { recordNow: true });
      sent += batch.length;
    }
    return { sent };
  } catch (error) {
    return { sent, error };
  }
}

/** The events from `start` that one publish carries: SWEEP_BATCH of them, or fewer once they reach SWEEP_BATCH_BYTES of JSON. */
function nextBatch(events: OpsEvent[], start: number): OpsEvent[] {
  let end = start;
  for (let bytes = 0; end < events.length && end - start < SWEEP_BATCH && (end === start || bytes < SWEEP_BATCH_BYTES); end++) {
    bytes += JSON.stringify(events[end]).length;
  }
  return events.slice(start, end);
}

/**
 * Publishes every event of the organisation not yet acknowledged, after a bulk write such as the
 * seed; throws if the room cannot take them (the sweep publishes them later).
 */
export async function publishPending(ctx: SweepContext, orgId: string): Promise<number> {
  let total = 0;
  for (;;) {
    const { events } = await unpublishedEvents(ctx.db, 0, SWEEP_PAGE, orgId);
    if (events.length === 0) return total;
    const { sent, error } = await publishInBatches(ctx, orgId, events);
    total += sent;
    if (error) throw error;
    // The invocation's subrequests are spent: the sweep publishes the rest.
    if (sent < events.length) return total;
  }
}

const warn = (message: string, facts: Record<string, unknown>) => console.warn(JSON.stringify({ level: "warn", message, ...facts }));

/**
 * Publishes what no room acknowledged, a page at a time (pages are cut by size as well as count:
 * db/statements/engine/answer-size.ts) until none is left, a room refuses, or SWEEP_SECONDS have gone.
 */
async function publishUnacknowledged(ctx: SweepContext, graceSeconds: number): Promise<{ published: number; failed: number }> {
  const deadline = Date.now() + SWEEP_SECONDS * 1000;
  let published = 0;
  let failed = 0;
  for (let more = true; more && Date.now() < deadline && subrequestsLeft(ctx) > TELL_RESERVE + 3;) {
    const page = await unpublishedEvents(ctx.db, graceSeconds, SWEEP_PAGE);
    const publishedBefore = published;
    const byOrg = new Map<string, OpsEvent[]>();
    for (const event of page.events) byOrg.set(event.orgId, [...(byOrg.get(event.orgId) ?? []), event]);
    for (const [orgId, orgEvents] of byOrg) {
      const { sent, error } = await publishInBatches(ctx, orgId, orgEvents);
      if (error) warn("sweep publish failed", { orgId, cause: String(error) });
      // Left for the next sweep (the budget is spent) is not failed.
      if (error) failed += orgEvents.length - sent;
      published += sent;
    }
    // A room that refused leaves its events unacknowledged: the next page would start with them
    // again. So does a budget spent: the next sweep starts with them.
    more = page.hasMore && failed === 0 && published === publishedBefore + page.events.length;
  }
  return { published, failed };
}

/**
 * The scheduled sweep: re-publishes what no room acknowledged, per organisation in changeVersion
 * order and in batches (a batch the room took stays acknowledged if a later one fails); repeats
 * recent revocations to the rooms, keys' and applications' (one that was not told closes their
 * sockets now), after ending the installations whose installer's authority is gone by another path.
 * Each part runs whatever became of the others. `troubles` counts the parts that failed: with
 * `failed` and `published`, whether the next sweeps must go on (functions/sweep-watch.ts). The
 * prunes are pruneRetained, on a schedule of their own.
 */
export async function sweep(
  ctx: SweepContext,
  options: { graceSeconds?: number },
): Promise<{ published: number; failed: number; troubles: number }> {
  let troubles = 0;
  const failing = (what: string) => (error: unknown) => {
    troubles++;
    warn(`sweep could not ${what}`, { cause: String(error) });
  };
  ctx = { ...ctx, rooms: withinBudget(ctx, PRUNE_RESERVE) };
  // What this isolate was told and holds for its next write is recorded first, not sent again
  // (when that fails, the events are sent again below, which costs only the repeat).
  await recordPendingAcknowledgements(ctx.db).catch(failing("record the acknowledgements held"));
  const { published, failed } = await publishUnacknowledged(ctx, options.graceSeconds ?? 10).catch((error: unknown) => {
    failing("read the events to publish")(error);
    return { published: 0, failed: 0 };
  });
  await recentlyRevokedKeys(ctx.db, REVOCATION_REPEAT_SECONDS)
    .then((revoked) =>
      Promise.all(
        [...revoked].map(([orgId, keyIds]) =>
          ctx.rooms.tell(orgId, { keysRevoked: keyIds }).catch((error: unknown) => {
            troubles++;
            warn("could not tell a room of revoked keys", { orgId, cause: String(error) });
          }),
        ),
      ),
    )
    .catch(failing("read the recent revocations"));
  await endUnauthorisedInstallations(ctx, TELL_RESERVE).catch(failing("end the installations whose installer's authority is gone"));
  await repeatEndedAccess(ctx, REVOCATION_REPEAT_SECONDS, warn).catch(failing("read the applications ended lately"));
  return { published, failed, troubles };
}

/**
 * Drops events and Idempotency-Keys past their retention, applications' tokens and grants that
 * can no longer be used, and audit entries past theirs. Each runs whatever became of the others.
 */
export async function pruneRetained(
  ctx: Pick<SweepContext, "db">,
  options: { retentionSeconds: number; auditRetentionSeconds?: number },
): Promise<{ pruned: number; auditPruned: number; troubles: number }> {
  let troubles = 0;
  const failing = (what: string) => (error: unknown) => {
    troubles++;
    warn(`could not ${what}`, { cause: String(error) });
    return 0;
  };
  const pruned = await pruneEvents(ctx.db, options.retentionSeconds).catch(failing("prune events"));
  await pruneIdempotencyKeys(ctx.db).catch(failing("prune Idempotency-Keys"));
  await pruneAppTokens(ctx).catch(failing("prune applications' tokens"));
  const auditPruned = await pruneAuditEntries(ctx.db, options.auditRetentionSeconds ?? AUDIT_RETENTION_DAYS * 86_400).catch(
    failing("prune the audit log"),
  );
  return { pruned, auditPruned, troubles };
}

/**
 * The rooms, told only while the invocation has more than `reserve` subrequests left (counting
 * the messages under way): past it a message fails at once, unsent, and the next sweep repeats it.
 */
function withinBudget(ctx: SweepContext, reserve: number): SweepContext["rooms"] {
  let underWay = 0;
  return {
    tell(orgId, message) {
      if (subrequestsLeft(ctx) - underWay <= reserve)
        return Promise.reject(new Error("the sweep's subrequests are spent: the next sweep tells this room"));
      underWay++;
      return ctx.rooms.tell(orgId, message).finally(() => underWay--);
    },
  };
}
