import { describe, expect, it } from "vitest";
import { ACTIVE_MS, afterSweep, planOf, type WatchState } from "../../functions/sweep-plan.ts";

// What the cron's runs do (functions/sweep-plan.ts; the state is kept by the SweepWatch Durable
// Object, functions/sweep-watch.ts): an idle service's minute sweeps and prunes do nothing, so they
// send Neon no statement and its compute can suspend (issue 45 row 5). Through the Worker, counting
// statements at the SQL endpoint: test/sync/idle-sweep.test.ts.

const T = Date.parse("2026-11-29T10:00:00Z");
const FRESH: WatchState = { activeUntil: 0, wakeAt: null, prunedAt: 0 };

describe("the minute sweep", () => {
  it("a service that never served a request does nothing", () => {
    expect(planOf(FRESH, T)).toEqual({ sweep: false, prune: false });
  });

  it("runs until activeUntil (a request's ACTIVE_MS), then stops", () => {
    const state = { ...FRESH, activeUntil: T + ACTIVE_MS };
    expect(planOf(state, T + ACTIVE_MS).sweep).toBe(true);
    expect(planOf(state, T + ACTIVE_MS + 1).sweep).toBe(false);
  });

  it("a sweep that did or failed at something keeps the next ones coming; one that found nothing does not", () => {
    const state = { ...FRESH, activeUntil: T };
    const busy = afterSweep(state, { busy: true, wakeAt: null }, T);
    expect(planOf(busy, T + ACTIVE_MS).sweep).toBe(true);
    const quiet = afterSweep(state, { busy: false, wakeAt: null }, T);
    expect(planOf(quiet, T + 60_000).sweep).toBe(false);
  });

  it("a room down for hours after a last request at T: every sweep fails, so every next one runs", () => {
    let state = { ...FRESH, activeUntil: T + ACTIVE_MS };
    for (let minute = 1; minute <= 300; minute++) {
      const now = T + minute * 60_000;
      expect(planOf(state, now).sweep, `minute ${minute}`).toBe(true);
      state = afterSweep(state, { busy: true, wakeAt: null }, now);
    }
  });

  it("wakes when mail is due, and forgets it once a sweep says none waits", () => {
    const waiting = afterSweep(FRESH, { busy: false, wakeAt: T + 30 * 60_000 }, T);
    expect(planOf(waiting, T + 29 * 60_000).sweep).toBe(false);
    expect(planOf(waiting, T + 30 * 60_000).sweep).toBe(true);
    expect(planOf(afterSweep(waiting, { busy: true, wakeAt: null }, T + 30 * 60_000), T + 60 * 60_000).sweep).toBe(false);
  });
});

describe("the prunes", () => {
  it("run when a request came since the last, and not again until another does", () => {
    const active = { ...FRESH, activeUntil: T + ACTIVE_MS };
    expect(planOf(active, T).prune).toBe(true);
    const pruned = { ...active, prunedAt: T + 6 * 3600_000 };
    expect(planOf(pruned, T + 6 * 3600_000).prune).toBe(false);
    expect(planOf({ ...pruned, activeUntil: T + 7 * 3600_000 }, T + 12 * 3600_000).prune).toBe(true);
  });
});
