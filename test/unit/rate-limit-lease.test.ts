import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { WINDOW_SECONDS } from "../../domain/limits.ts";
import {
  countRequests,
  IsolateBudgets,
  LEASE_MAX,
  LEASE_SHARE,
  type CountingWindow,
  type RateLimitLease,
} from "../../functions/rate-limit/lease.ts";

// The rate limit's arithmetic (functions/rate-limit/lease.ts): the counting the key's RateLimiter
// does, and the budgets Worker isolates hold of what it leased them. A "limiter" here is the real
// countRequests on one window, reached after a random pause (as a Durable Object call is), so
// the isolates' asks interleave; "isolates" are IsolateBudgets instances. The Durable Object
// itself, and one isolate against it through HTTP, are tested in test/protection/rate-limits.test.ts
// and test/batch/rate-limit.test.ts.

const KEY = "key-hash";
const WINDOW_MS = WINDOW_SECONDS * 1000;
/** Mid-window, so no test crosses a window by accident. */
const NOW = 1_800_000_000_000 - (1_800_000_000_000 % WINDOW_MS) + WINDOW_MS / 2;

function limiter(limit: number, now = () => NOW) {
  const window: CountingWindow = { start: 0, count: 0 };
  const asked: number[] = [];
  return {
    window,
    asked,
    /** The limiter as an isolate asks it: counted after a pause of up to `maxPauseMs`. */
    ask:
      (maxPauseMs = 2) =>
      async (need: number): Promise<RateLimitLease> => {
        await sleep(Math.random() * maxPauseMs);
        asked.push(need);
        return countRequests(window, limit, need, now());
      },
  };
}

describe("countRequests: the limiter's count", () => {
  it("counts the cost and a lease of a tenth of what is left, at most LEASE_MAX", () => {
    const window: CountingWindow = { start: 0, count: 0 };
    const first = countRequests(window, 600, 1, NOW);
    expect(first).toMatchObject({ known: true, allowed: true, limit: 600, leased: Math.floor(599 / LEASE_SHARE), remaining: 600 - 1 - 59 });
    expect(window.count).toBe(60);
    expect(countRequests({ start: 0, count: 0 }, 1_000_000, 1, NOW).leased).toBe(LEASE_MAX);
  });

  it("near the limit leases shrink to nothing, and a call that does not fit counts nothing", () => {
    const window: CountingWindow = { start: 0, count: 0 };
    const leases: number[] = [];
    for (let i = 0; i < 100; i++) {
      const decision = countRequests(window, 100, 1, NOW);
      if (!decision.allowed) break;
      leases.push(decision.leased);
    }
    expect(window.count).toBe(100);
    // The last requests of the window (fewer than LEASE_SHARE left after them) are counted one by one.
    expect(leases.slice(-(LEASE_SHARE - 1))).toEqual(Array(LEASE_SHARE - 1).fill(0));
    const refused = countRequests(window, 100, 1, NOW);
    expect(refused).toMatchObject({ allowed: false, leased: 0, remaining: 0 });
    expect(window.count).toBe(100);
    expect(countRequests({ start: 0, count: 95 }, 100, 6, NOW).allowed).toBe(true); // a stale window starts again
  });

  it("a new window starts from zero, and resetSeconds counts down to its end", () => {
    const window: CountingWindow = { start: 0, count: 0 };
    countRequests(window, 10, 10, NOW);
    expect(countRequests(window, 10, 1, NOW).allowed).toBe(false);
    const next = countRequests(window, 10, 1, NOW + WINDOW_MS);
    expect(next).toMatchObject({ allowed: true, resetSeconds: WINDOW_SECONDS / 2, windowEndsAt: NOW + WINDOW_MS + WINDOW_MS / 2 });
  });
});

describe("IsolateBudgets: one isolate", () => {
  it("calls one after another: RateLimit-Remaining counts down by one exactly, the limiter asked a few times, refused at the limit", async () => {
    const counter = limiter(600);
    const isolate = new IsolateBudgets();
    const remaining: number[] = [];
    for (let i = 0; i < 601; i++) {
      const decision = await isolate.consume(KEY, 1, counter.ask(0), () => NOW);
      if (decision.allowed) remaining.push(decision.remaining);
      else expect(decision).toMatchObject({ allowed: false, remaining: 0, limit: 600 });
    }
    expect(remaining).toEqual(Array.from({ length: 600 }, (_, i) => 599 - i));
    expect(counter.window.count).toBe(600);
    expect(counter.asked.length).toBeLessThan(60);
    expect(counter.asked.length).toBeGreaterThan(LEASE_SHARE); // the last ten are asked one by one
  });

  it("200 calls at once at a limit of 100: exactly 100 allowed, nothing left unspent", async () => {
    const counter = limiter(100);
    const isolate = new IsolateBudgets();
    const decisions = await Promise.all(Array.from({ length: 200 }, () => isolate.consume(KEY, 1, counter.ask(), () => NOW)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100);
    expect(isolate.held(KEY, NOW)).toBe(0);
    expect(counter.window.count).toBe(100);
  });

  it("batches and single calls at once: what is allowed adds up to the limit exactly, and a batch that does not fit takes nothing", async () => {
    const counter = limiter(100);
    const isolate = new IsolateBudgets();
    const costs = Array.from({ length: 80 }, (_, i) => (i % 4 === 0 ? 7 : 1));
    const decisions = await Promise.all(costs.map((cost) => isolate.consume(KEY, cost, counter.ask(), () => NOW)));
    const allowed = costs.filter((_, i) => decisions[i]!.allowed).reduce((sum, cost) => sum + cost, 0);
    expect(allowed + isolate.held(KEY, NOW)).toBe(counter.window.count);
    expect(counter.window.count).toBeLessThanOrEqual(100);
    // Every refusal is a call that did not fit what the limiter and this isolate had left.
    for (const [i, decision] of decisions.entries()) if (!decision.allowed) expect(decision.remaining).toBeLessThan(costs[i]!);
  });

  it("a batch that does not fit takes nothing: what the isolate held it still holds, and spends", async () => {
    const counter = limiter(1000);
    const isolate = new IsolateBudgets();
    await isolate.consume(KEY, 1, counter.ask(0), () => NOW);
    expect(isolate.held(KEY, NOW)).toBe(99);
    const refused = await isolate.consume(KEY, 1000, counter.ask(0), () => NOW);
    expect(refused).toMatchObject({ allowed: false, limit: 1000, remaining: 999 });
    expect(isolate.held(KEY, NOW)).toBe(99);
    expect(await isolate.consume(KEY, 999, counter.ask(0), () => NOW)).toMatchObject({ allowed: true, remaining: 0 });
    expect(counter.window.count).toBe(1000);
  });
});

describe("IsolateBudgets: several isolates, one limiter", () => {
  it("never more than the limit; every request counted is spent or still held by an isolate", async () => {
    for (let round = 0; round < 20; round++) {
      const limit = 50 + Math.floor(Math.random() * 500);
      const counter = limiter(limit);
      const isolates = Array.from({ length: 4 }, () => new IsolateBudgets());
      let allowed = 0;
      await Promise.all(
        Array.from({ length: limit + 100 }, async (_, i) => {
          await sleep(Math.random() * 5);
          const cost = i % 10 === 0 ? 1 + Math.floor(Math.random() * 5) : 1;
          const decision = await isolates[i % isolates.length]!.consume(KEY, cost, counter.ask(), () => NOW);
          if (decision.allowed) allowed += cost;
        }),
      );
      const held = isolates.reduce((sum, isolate) => sum + isolate.held(KEY, NOW), 0);
      expect(allowed).toBeLessThanOrEqual(limit);
      expect(allowed + held).toBe(counter.window.count);
      // Leases shrink near the limit: what other isolates still hold stays a small part of it.
      expect(held).toBeLessThanOrEqual(Math.ceil(limit / LEASE_SHARE));
    }
  });
});

describe("IsolateBudgets: windows, failures, keys", () => {
  it("what is held of a window that has ended is not spent in the next", async () => {
    let now = NOW;
    const counter = limiter(1000, () => now);
    const isolate = new IsolateBudgets();
    await isolate.consume(KEY, 1, counter.ask(0), () => now);
    expect(isolate.held(KEY, now)).toBe(99);
    now += WINDOW_MS;
    expect(isolate.held(KEY, now)).toBe(0);
    const decision = await isolate.consume(KEY, 1, counter.ask(0), () => now);
    expect(decision).toMatchObject({ allowed: true, remaining: 999 });
    expect(counter.asked).toEqual([1, 1]);
    expect(counter.window.count).toBe(100);
  });

  it("a limiter out of reach fails the call; what the budget held is kept, and callers waiting on the ask go on", async () => {
    const counter = limiter(1000);
    const isolate = new IsolateBudgets();
    await isolate.consume(KEY, 1, counter.ask(0), () => NOW); // holds 99
    const failing = async () => {
      await sleep(1);
      throw new Error("limiter out of reach");
    };
    const [batch, single] = await Promise.allSettled([
      isolate.consume(KEY, 150, failing, () => NOW),
      isolate.consume(KEY, 100, failing, () => NOW),
    ]);
    expect(batch.status).toBe("rejected");
    expect(single.status).toBe("rejected");
    expect(isolate.held(KEY, NOW)).toBe(99);
    expect(await isolate.consume(KEY, 1, failing, () => NOW)).toMatchObject({ allowed: true });
  });

  it("an ask that throws at once fails the call and leaves the budget as it was", async () => {
    const counter = limiter(1000);
    const isolate = new IsolateBudgets();
    await isolate.consume(KEY, 1, counter.ask(0), () => NOW);
    const throwing = (): Promise<RateLimitLease> => {
      throw new Error("no limiter binding");
    };
    await expect(isolate.consume(KEY, 500, throwing, () => NOW)).rejects.toThrow("no limiter binding");
    expect(isolate.held(KEY, NOW)).toBe(99);
  });

  it("a key the limiter does not know leaves no budget; forget drops one", async () => {
    const isolate = new IsolateBudgets();
    const unknown = async (): Promise<RateLimitLease> => ({
      known: false,
      blocked: false,
      allowed: false,
      limit: 0,
      remaining: 0,
      resetSeconds: 30,
      leased: 0,
      windowEndsAt: NOW + 30_000,
    });
    expect(await isolate.consume(KEY, 1, unknown, () => NOW)).toMatchObject({ known: false });
    expect(isolate.held(KEY, NOW)).toBe(0);
    const counter = limiter(1000);
    await isolate.consume(KEY, 1, counter.ask(0), () => NOW);
    expect(isolate.held(KEY, NOW)).toBe(99);
    isolate.forget(KEY);
    expect(isolate.held(KEY, NOW)).toBe(0);
    await isolate.consume(KEY, 1, counter.ask(0), () => NOW);
    expect(counter.asked).toHaveLength(2);
  });

  it("past keysKept keys an isolate starts again, and a key's next call asks its limiter", async () => {
    const isolate = new IsolateBudgets(3);
    const counters = ["a", "b", "c", "d"].map((key) => ({ key, counter: limiter(1000) }));
    for (const { key, counter } of counters) await isolate.consume(key, 1, counter.ask(0), () => NOW);
    expect(isolate.held("a", NOW)).toBe(0);
    expect(isolate.held("d", NOW)).toBe(99);
  });
});
