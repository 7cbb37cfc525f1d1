import { DurableObject } from "cloudflare:workers";
import { databaseFor } from "../lib/database.ts";
import type { Bindings } from "../env.ts";

/** What the limiter answers for one request. */
export interface RateLimitDecision {
  /** False when the key does not exist: the caller answers 401 without counting. */
  known: boolean;
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

export const RATE_LIMIT_WINDOW_SECONDS = 60;
const LIMIT_REFRESH_MS = 5 * 60_000;

/**
 * One Durable Object per API key (named by the key's hash): every Worker instance counts through
 * the same object, which handles one request at a time, so the count is exact under any
 * concurrency and never touches the database. Fixed windows of 60 s; the key's own limit is read
 * from api_keys once and refreshed every few minutes.
 */
export class RateLimiter extends DurableObject<Bindings> {
  private limit: Promise<number | null> | null = null;
  private limitReadAt = 0;
  private window = { start: 0, count: 0 };
  private loaded: Promise<void>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    // The window survives eviction, so a key cannot get a fresh allowance by waiting for one.
    this.loaded = ctx.blockConcurrencyWhile(async () => {
      this.window = (await ctx.storage.get<{ start: number; count: number }>("window")) ?? this.window;
    });
  }

  async consume(keyHash: string): Promise<RateLimitDecision> {
    await this.loaded;
    const limit = await this.limitOf(keyHash);
    const now = Date.now();
    // Everything below runs without awaiting, so concurrent calls cannot interleave and miscount.
    const windowMs = RATE_LIMIT_WINDOW_SECONDS * 1000;
    const start = now - (now % windowMs);
    if (this.window.start !== start) this.window = { start, count: 0 };
    const resetSeconds = Math.max(1, Math.ceil((start + windowMs - now) / 1000));
    if (limit === null) return { known: false, allowed: false, limit: 0, remaining: 0, resetSeconds };
    const allowed = this.window.count < limit;
    if (allowed) this.window.count++;
    void this.ctx.storage.put("window", this.window);
    return { known: true, allowed, limit, remaining: Math.max(0, limit - this.window.count), resetSeconds };
  }

  private limitOf(keyHash: string): Promise<number | null> {
    if (!this.limit || Date.now() - this.limitReadAt > LIMIT_REFRESH_MS) {
      this.limitReadAt = Date.now();
      this.limit = this.readLimit(keyHash).catch((error) => {
        this.limit = null; // not cached: the next request asks again
        throw error;
      });
    }
    return this.limit;
  }

  private async readLimit(keyHash: string): Promise<number | null> {
    const db = databaseFor(this.env);
    try {
      const { rows } = await db.query<{ rate_limit: number }>("select rate_limit from api_keys where key_hash = $1", [keyHash]);
      return rows[0]?.rate_limit ?? null;
    } finally {
      await db.close().catch(() => {});
    }
  }
}
