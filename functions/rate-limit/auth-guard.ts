import { DurableObject } from "cloudflare:workers";
import { FAILED_KEYS_PER_WINDOW, WINDOW_SECONDS } from "../../domain/limits.ts";
import type { Bindings } from "../env.ts";

/** What the guard answers about one client address. */
export interface GuardDecision {
  blocked: boolean;
  /** Seconds until the address's window resets (when blocked: how long to wait). */
  retryAfter: number;
}

/**
 * Also counts failed sign-ins, in objects of their own: one per address and one per account
 * (functions/auth/routes.ts, FAILED_SIGN_INS_PER_WINDOW), and sign-ups per address, in windows
 * of an hour (SIGN_UPS_PER_ADDRESS). Each object counts one thing, in windows of one length.
 *
 * One Durable Object per client address, counting the well-formed keys it presented that turned
 * out unknown or revoked. A key's checksum is public, so a random well-formed key costs a lookup:
 * after FAILED_KEYS_PER_WINDOW of them in a fixed 60 s window the address is answered 429 before
 * any key of it that is not already known is looked up. Keys the API already knows (their
 * RateLimiter holds their limit) never ask the guard, so valid keys are unaffected.
 */
export class AuthGuard extends DurableObject<Bindings> {
  private window = { start: 0, failures: 0 };
  private loaded: Promise<void>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    // A block survives eviction (it is stored when it begins); counts below it are kept in memory.
    this.loaded = ctx.blockConcurrencyWhile(async () => {
      this.window = (await ctx.storage.get<{ start: number; failures: number }>("window")) ?? this.window;
    });
  }

  /** Whether the address is blocked now, without counting anything. */
  async check(limit = FAILED_KEYS_PER_WINDOW): Promise<GuardDecision> {
    await this.loaded;
    return this.decision(limit);
  }

  /** Counts one refusal. */
  async fail(limit = FAILED_KEYS_PER_WINDOW): Promise<GuardDecision> {
    await this.loaded;
    const decision = this.decision(limit);
    this.window.failures++;
    if (this.window.failures === limit) await this.ctx.storage.put("window", this.window);
    return decision;
  }

  /**
   * Counts one attempt (a sign-up) if the window allows it, and answers whether it does. Each
   * count is stored: a window of an hour outlasts the object's stay in memory between attempts.
   */
  async attempt(limit: number, windowSeconds: number): Promise<GuardDecision> {
    await this.loaded;
    const decision = this.decision(limit, windowSeconds);
    if (decision.blocked) return decision;
    this.window.failures++;
    await this.ctx.storage.put("window", this.window);
    return decision;
  }

  private decision(limit: number, windowSeconds = WINDOW_SECONDS, now = Date.now()): GuardDecision {
    const windowMs = windowSeconds * 1000;
    const start = now - (now % windowMs);
    if (this.window.start !== start) this.window = { start, failures: 0 };
    const retryAfter = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    return { blocked: this.window.failures >= limit, retryAfter };
  }
}
