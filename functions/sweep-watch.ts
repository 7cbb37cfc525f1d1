import { DurableObject } from "cloudflare:workers";
import type { Bindings } from "./env.ts";
import { ACTIVE_MS, afterSweep, planOf, TELL_EVERY_MS, type SweepPlan, type WatchState } from "./sweep-plan.ts";

// Whether the cron's sweeps have anything to do, known without the database (docs/deployment.md
// "Neon": an idle service lets Neon suspend its compute). Neon suspends a compute after 5 minutes
// without a statement, and a sweep that asked the database every minute would keep it running for
// ever: compute hours on the Free plan (which then answers every call with a quota error), cost on
// a paid one. So the minute sweep asks this one Durable Object first, and sends no statement when:
//   - the Worker served no request for ACTIVE_MS (every write, and every revocation the sweep
//     repeats for 180 s, is a request; each isolate says so at most once a minute: noteRequest),
//   - no sweep since found anything to do or failed at it (an event unpublished, a room down, a
//     file to remove: such a sweep keeps the next ones coming, so an unacknowledged event is always
//     published in the end),
//   - and no mail is due (the sweep records when the next one is: `wakeAt`).
// The prunes (retention) run on a cron of their own, and only when a request came since the last.

/** The one watch of the deployment. */
export const sweepWatchOf = (env: Bindings) => env.SWEEP_WATCH.get(env.SWEEP_WATCH.idFromName("sweep"));

export class SweepWatch extends DurableObject<Bindings> {
  private state: WatchState = { activeUntil: 0, wakeAt: null, prunedAt: 0 };
  private loaded: Promise<void>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    this.loaded = ctx.blockConcurrencyWhile(async () => {
      this.state = (await ctx.storage.get<WatchState>("state")) ?? this.state;
    });
  }

  private async save(): Promise<void> {
    await this.ctx.storage.put("state", this.state);
  }

  /** Requests were served: the minute sweeps go on until `until`. */
  async active(until: number): Promise<void> {
    await this.loaded;
    if (until <= this.state.activeUntil) return;
    this.state.activeUntil = until;
    await this.save();
  }

  /** What the cron should do now; `localUntil` is what the asking isolate itself saw (noteRequest), not yet told. */
  async plan(localUntil: number, now = Date.now()): Promise<SweepPlan> {
    await this.active(localUntil);
    return planOf(this.state, now);
  }

  /** A minute sweep ended: `busy` (it did or failed at something) keeps the next ones coming; `wakeAt` is when mail is next due. */
  async swept(outcome: { busy: boolean; wakeAt: number | null }, now = Date.now()): Promise<void> {
    await this.loaded;
    this.state = afterSweep(this.state, outcome, now);
    await this.save();
  }

  /** The prunes ran. */
  async pruned(now = Date.now()): Promise<void> {
    await this.loaded;
    this.state.prunedAt = now;
    await this.save();
  }
}

/** Until when this isolate's requests keep the sweeps going (it told the watch so, or is telling it). */
let coveredUntil = 0;

/** What this isolate's requests cover, for a sweep that runs in it (its tell may not have landed yet). */
export const locallyActiveUntil = () => coveredUntil;

/**
 * A request is being served: the watch is told the sweeps must go on until ACTIVE_MS from now,
 * after the answer, and at most once a minute per isolate (each tell covers TELL_EVERY_MS more).
 * A tell that fails is tried again with the next request.
 */
export function noteRequest(env: Bindings, ctx: ExecutionContext, now = Date.now()): void {
  if (now + ACTIVE_MS <= coveredUntil) return;
  coveredUntil = now + ACTIVE_MS + TELL_EVERY_MS;
  const until = coveredUntil;
  ctx.waitUntil(
    sweepWatchOf(env)
      .active(until)
      .catch((error: unknown) => {
        coveredUntil = 0;
        console.warn(JSON.stringify({ level: "warn", message: "could not tell the sweep watch of requests", cause: String(error) }));
      }),
  );
}
