// What the cron's runs do, decided without the database (functions/sweep-watch.ts keeps the state
// in a Durable Object); apart so the unit tests and the test helpers read it in Node.

/** The crons of wrangler.toml [triggers]: the minute sweep, and the prunes every 6 hours. */
export const SWEEP_CRON = "* * * * *";
export const PRUNE_CRON = "0 */6 * * *";

/** How long after a request the minute sweeps go on: its 10 s grace, 180 s of repeated revocations, and a tick. */
export const ACTIVE_MS = 240_000;
/** An isolate tells the watch at most once this often: each tell covers this much beyond ACTIVE_MS. */
export const TELL_EVERY_MS = 60_000;

export interface WatchState {
  /** The minute sweeps run until then (ms since the epoch). */
  activeUntil: number;
  /** ...and once it is past this (the next mail due), null when nothing waits. */
  wakeAt: number | null;
  /** When the prunes last ran. */
  prunedAt: number;
}

export interface SweepPlan {
  sweep: boolean;
  prune: boolean;
}

/** What the cron should do at `now`: sweep while active or once something is due; prune once a request came since the last prune. */
export function planOf(state: WatchState, now: number): SweepPlan {
  return {
    sweep: now <= state.activeUntil || (state.wakeAt !== null && now >= state.wakeAt),
    prune: state.activeUntil > state.prunedAt,
  };
}

/** A minute sweep ended: `busy` (it did or failed at something) keeps the next ones coming for ACTIVE_MS; `wakeAt` is when mail is next due. */
export function afterSweep(state: WatchState, outcome: { busy: boolean; wakeAt: number | null }, now: number): WatchState {
  return {
    ...state,
    activeUntil: outcome.busy ? Math.max(state.activeUntil, now + ACTIVE_MS) : state.activeUntil,
    wakeAt: outcome.wakeAt,
  };
}
