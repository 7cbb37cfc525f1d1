import * as statements from "../db/statements/webhooks.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { matchesFilter } from "../domain/event-filter.ts";
import { REPLAY_BATCH, webhookFilter } from "../realtime/protocol.ts";
import type { Call } from "./context.ts";
import { assertKeptAfter } from "./events.ts";
import { settleCaller } from "./settle.ts";
import { assertEnabled, assertHoldsScopesOf, handToRoom } from "./webhooks.ts";

// POST /v1/webhooks/{id}/replay: past events queued again for one webhook. Its work is bounded
// three ways (docs/api.md "Webhooks"): a range spans at most REPLAY_MAX_SPAN changeVersions; the
// events it queues count against the caller's rate limit, a request per REPLAY_EVENTS_PER_REQUEST,
// paid before each page goes to the room; and the room refuses a page that would take the
// webhook's backlog past its limit. A replay stopped by either of the last two keeps what it
// queued, and says up to where (`queuedUpTo`), so the caller goes on from there.

/** changeVersions one replay may span: a call's work is bounded, and a longer range is split. */
export const REPLAY_MAX_SPAN = 10_000;
/** Events a replay queues per request of the caller's rate limit; the call itself pays for the first ones. */
export const REPLAY_EVENTS_PER_REQUEST = 10;

/** Counts `more` requests against the caller's rate limit; throws rate_limited, counting none, when they do not fit. */
export type Charge = (more: number) => Promise<void>;

/** The end of the range (after, until] a replay covers, `current` the organisation's changeVersion; 400 naming the field otherwise. */
function replayUntil(after: number, until: number | null, current: number): number {
  const refuse = (field: string, message: string) => new DomainError("invalid_field", message, { field });
  if (until !== null && until <= after) throw refuse("until", "until must be greater than after: the range (after, until] is empty");
  if (until !== null && until > current) throw refuse("until", `until is past the organisation's changeVersion, ${current}`);
  // after = the current changeVersion is "caught up": 202 with nothing queued, so a repair job need not special-case it.
  if (until === null && after > current) throw refuse("after", `after is past the organisation's changeVersion, ${current}`);
  const end = until ?? current;
  if (end - after > REPLAY_MAX_SPAN) {
    throw refuse(
      "until",
      `(${after}, ${end}] spans ${end - after} changeVersions and a replay at most ${REPLAY_MAX_SPAN}: split the range, e.g. until=${after + REPLAY_MAX_SPAN} first`,
    );
  }
  return end;
}

/**
 * What a replay has paid for, in events: the call's own request covers the first
 * REPLAY_EVENTS_PER_REQUEST, and `upTo(n)` charges the requests n events need beyond those, all at
 * once, else one at a time while the window has any left. It answers how many of the n are paid
 * for; when that is fewer, `refusal` is the rate limit's answer.
 */
function paidEvents(charge: Charge) {
  let requests = 1;
  let refusal: DomainError | null = null;
  const tryCharge = async (more: number) => {
    try {
      await charge(more);
      requests += more;
      return true;
    } catch (error) {
      if (!(error instanceof DomainError && error.code === "rate_limited")) throw error;
      refusal = error;
      return false;
    }
  };
  return {
    async upTo(events: number): Promise<number> {
      const owed = Math.ceil(events / REPLAY_EVENTS_PER_REQUEST) - requests;
      if (owed > 0 && !(await tryCharge(owed))) for (let left = owed; left > 0 && (await tryCharge(1)); left--);
      return Math.min(events, requests * REPLAY_EVENTS_PER_REQUEST);
    },
    refusal: () => refusal,
  };
}

/**
 * Queues, in changeVersion order, every kept event in (after, until] that the webhook would have
 * received (its scopes and its filter): webhooks.manage and every scope it carries. The events are
 * read and handed to the room a page at a time, so a replay's memory does not grow with its range.
 */
export async function replayWebhook({
  ctx,
  input,
}: Call<{ id: string; after: number; until: number | null; retentionSeconds: number; charge: Charge }>) {
  const read = async (after: number, until: number | null) => {
    const first = after === input.after;
    const page = await statements.replayPage(
      ctx.db,
      ctx.actor,
      input.id,
      { after, until, limit: REPLAY_BATCH, retentionSeconds: input.retentionSeconds },
      // The first page records the replay in the audit log, when it goes ahead.
      first ? { request: ctx.request ?? NO_REQUEST, maxSpan: REPLAY_MAX_SPAN } : undefined,
    );
    settleCaller(page.caller, ctx, "webhooks.manage");
    return page;
  };
  let page = await read(input.after, input.until);
  const until = replayUntil(input.after, input.until, page.caller.changeVersion);
  const webhook = page.webhook;
  if (!webhook) throw notFound("webhook");
  assertHoldsScopesOf(webhook.scopes, page.caller.scopes, "replaying to it");
  assertEnabled(webhook);
  assertKeptAfter(input.after, page.firstKept, `replay after=${page.firstKept - 1} or later`);
  const filter = webhookFilter(webhook);
  const paid = paidEvents(input.charge);
  let queued = 0;
  for (let handed = input.after; ;) {
    const wanted = page.events.filter((event) => matchesFilter(filter, event));
    const handing = wanted.slice(0, (await paid.upTo(queued + wanted.length)) - queued);
    if (handing.length > 0)
      await handToRoom(ctx, webhook.orgId, { replay: { webhookId: webhook.id, events: handing } }).catch(stoppedAt(handed, until));
    queued += handing.length;
    if (handing.length < wanted.length) throw rateLimitedAt(handing.at(-1)?.changeVersion ?? handed, until, paid.refusal()!);
    const last = page.events.at(-1);
    if (!last || !page.hasMore) return { webhookId: webhook.id, after: input.after, until, queued };
    handed = last.changeVersion;
    page = await read(handed, until);
  }
}

/**
 * A replay the room stopped taking midway (down, the webhook turned off, its backlog full): what
 * went is queued, so the caller goes on from there rather than repeat it.
 */
const stoppedAt = (handed: number, until: number) => (error: unknown) => {
  if (!(error instanceof DomainError)) throw error;
  throw new DomainError(
    error.code,
    `${error.message}; the events up to changeVersion ${handed} are queued: go on with after=${handed}&until=${until}`,
    {
      ...error.details,
      queuedUpTo: handed,
    },
  );
};

/** The rate limit ran out midway: the events up to `upTo` are queued, the rest wait for the next window. */
function rateLimitedAt(upTo: number, until: number, refusal: DomainError): DomainError {
  const { retryAfter } = refusal.details;
  return new DomainError(
    "rate_limited",
    `a replay counts a request per ${REPLAY_EVENTS_PER_REQUEST} events it queues, and the rate limit ran out: the events up to changeVersion ${upTo} are queued; go on with after=${upTo}&until=${until} in ${String(retryAfter)} s`,
    { retryAfter, queuedUpTo: upTo },
  );
}
