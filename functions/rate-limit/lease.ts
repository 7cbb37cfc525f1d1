import { WINDOW_SECONDS } from "../../domain/limits.ts";

// The rate limit's arithmetic, apart from the runtime so that it can be tested as it is: the
// counting the key's RateLimiter (limiter.ts) does, and the budget each Worker isolate holds of
// what the limiter leased it (functions/middleware/rate-limit.ts).
//
// Asking the limiter is a Durable Object request: billed by the request and by the object's
// duration, and on Cloudflare a round trip to wherever the key's object lives, often another
// location (locally, in one process, it is a small part of a call's CPU: bench/results/README.md "CPU per
// call, third pass"). So when the limiter allows a call, it also counts a lease, a share of what
// the window has left, and hands it to the isolate, which spends it on the key's next calls
// without asking. What is leased is counted: across every isolate together, a key never gets more
// than its limit in a window. Near the limit the leases shrink to nothing, and the window's last
// requests are counted by the limiter one by one.

/** What the limiter answers for one request. */
export interface RateLimitDecision {
  /** False when the key does not exist or is revoked: the caller answers 401 without counting. */
  known: boolean;
  /**
   * The key is not known here and its client address has presented too many refused keys: the
   * caller answers 429 without looking the key up.
   */
  blocked: boolean;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/**
 * The limiter's answer to one isolate: its decision, and the requests it counted beyond the cost
 * and leased to that isolate. An allowed decision's `remaining` leaves the lease out.
 */
export interface RateLimitLease extends RateLimitDecision {
  leased: number;
  /** When the window the lease belongs to ends (ms since the epoch, the limiter's clock). */
  windowEndsAt: number;
}

/** A lease is at most this share of what the window has left after the call, and at most LEASE_MAX requests. */
export const LEASE_SHARE = 10;
export const LEASE_MAX = 100;

/** A key's count in its current fixed window. */
export interface CountingWindow {
  start: number;
  count: number;
}

/**
 * Counts `cost` requests of a known key against `limit` in the window of `now` (a new window
 * starts from zero): all of them, and a lease on top, or nothing. Synchronous, so that concurrent
 * calls to the limiter cannot interleave and miscount.
 */
export function countRequests(window: CountingWindow, limit: number, cost: number, now: number): RateLimitLease {
  const times = windowAt(now);
  const start = times.windowEndsAt - WINDOW_SECONDS * 1000;
  if (window.start !== start) Object.assign(window, { start, count: 0 });
  const allowed = window.count + cost <= limit;
  const leased = allowed ? Math.min(LEASE_MAX, Math.floor((limit - window.count - cost) / LEASE_SHARE)) : 0;
  if (allowed) window.count += cost + leased;
  return { known: true, blocked: false, allowed, limit, remaining: Math.max(0, limit - window.count), leased, ...times };
}

/** The end of the fixed window `now` falls in, and the seconds until it. */
export function windowAt(now: number): { windowEndsAt: number; resetSeconds: number } {
  const windowMs = WINDOW_SECONDS * 1000;
  return untilEnd(now - (now % windowMs) + windowMs, now);
}

function untilEnd(windowEndsAt: number, now: number): { windowEndsAt: number; resetSeconds: number } {
  return { windowEndsAt, resetSeconds: Math.max(1, Math.ceil((windowEndsAt - now) / 1000)) };
}

/** What one isolate holds of a key's window: requests the limiter counted and leased to it, not yet spent. */
interface Budget {
  tokens: number;
  /** The window the tokens belong to ends then. */
  windowEndsAt: number;
  limit: number;
  /** What the limiter had left after its last answer, this isolate's tokens excluded. */
  remaining: number;
  /** The ask to the limiter in flight for this key, if any. */
  asking: Promise<unknown> | null;
}

/**
 * The budgets of one isolate, by key. A call is paid from its key's budget when that holds enough;
 * otherwise the limiter is asked for what the budget lacks, one ask at a time per key: a caller
 * that finds the budget short while an ask is in flight waits for it and looks again, so no
 * leased request is left unspent while a caller of this isolate is refused. With one isolate the
 * counts are exact; with several, `remaining` is this isolate's view.
 */
export class IsolateBudgets {
  private readonly budgets = new Map<string, Budget>();

  /** `keysKept`: past that many keys the isolate starts again (their leases are lost, not given twice). */
  constructor(private readonly keysKept = 10_000) {}

  /** Counts `cost` requests of the key; `ask` asks its limiter for `need` of them. */
  async consume(
    key: string,
    cost: number,
    ask: (need: number) => Promise<RateLimitLease>,
    now: () => number = Date.now,
  ): Promise<RateLimitDecision> {
    for (;;) {
      const budget = this.budgets.get(key);
      const at = now();
      // A window that has ended takes what was left of its lease with it.
      if (budget && at >= budget.windowEndsAt) budget.tokens = 0;
      if (budget && budget.tokens >= cost) {
        budget.tokens -= cost;
        return spent(budget, at);
      }
      if (!budget?.asking) return this.ask(key, cost, ask, now);
      await budget.asking;
    }
  }

  /** Requests of the key's window this isolate holds, leased and not yet spent. */
  held(key: string, now = Date.now()): number {
    const budget = this.budgets.get(key);
    return budget && now < budget.windowEndsAt ? budget.tokens : 0;
  }

  /** The key was found revoked: what this isolate holds of it goes. */
  forget(key: string): void {
    this.budgets.delete(key);
  }

  private async ask(
    key: string,
    cost: number,
    ask: (need: number) => Promise<RateLimitLease>,
    now: () => number,
  ): Promise<RateLimitDecision> {
    if (this.budgets.size >= this.keysKept && !this.budgets.has(key)) this.budgets.clear();
    const budget = this.budgets.get(key) ?? { tokens: 0, windowEndsAt: 0, limit: 0, remaining: 0, asking: null };
    this.budgets.set(key, budget);
    // The call takes what the budget holds and asks for the rest; refused, it gives it back.
    const held = budget.tokens;
    budget.tokens = 0;
    let answer: Promise<RateLimitLease>;
    try {
      answer = ask(cost - held);
    } catch (error) {
      answer = Promise.reject(error);
    }
    budget.asking = answer.catch(() => {});
    try {
      const lease = await answer.catch((error: unknown) => {
        budget.tokens += held;
        throw error;
      });
      if (!lease.known) {
        this.budgets.delete(key);
        return lease;
      }
      // Held from a window that has ended since, the tokens are no longer worth anything.
      const sameWindow = lease.windowEndsAt === budget.windowEndsAt;
      Object.assign(budget, { limit: lease.limit, remaining: lease.remaining, windowEndsAt: lease.windowEndsAt });
      if (!lease.allowed) {
        if (sameWindow) budget.tokens += held;
        return { ...lease, remaining: lease.remaining + budget.tokens };
      }
      budget.tokens += lease.leased;
      return spent(budget, now());
    } finally {
      budget.asking = null;
    }
  }
}

/** The decision of a call paid from the budget: what is left is the limiter's plus the budget's. */
function spent(budget: Budget, now: number): RateLimitDecision {
  return {
    known: true,
    blocked: false,
    allowed: true,
    limit: budget.limit,
    remaining: budget.remaining + budget.tokens,
    resetSeconds: untilEnd(budget.windowEndsAt, now).resetSeconds,
  };
}
