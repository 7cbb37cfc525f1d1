import { DurableObject } from "cloudflare:workers";
import { clientOf } from "../../domain/client-address.ts";
import type { Bindings } from "../env.ts";
import type { GuardDecision } from "./auth-guard.ts";
import { withOneRetry } from "./durable-retry.ts";
import { countRequests, windowAt, type RateLimitLease } from "./lease.ts";

const LIMIT_REFRESH_MS = 5 * 60_000;
/** How long a changed window may wait for its write to storage (persistWindow). */
const WINDOW_WRITE_MS = 1_000;

/**
 * One Durable Object per API key (named by the key's hash), and one per person in an organisation
 * (consumeAt, named `person:<orgId>:<userId>`): every Worker instance counts through
 * the same object, which handles one request at a time, so the count is exact under any
 * concurrency and never touches the database. Fixed windows of 60 s; the key's own limit is read
 * from api_keys once and refreshed every few minutes.
 *
 * A key this object has never known (a first use, or a random well-formed key) is looked up only
 * if its client address is not blocked by the AuthGuard; a key found unknown or revoked counts
 * against that address. A known key's limit is kept in storage beside the window, so it stays
 * known when the object is evicted between calls: a valid key in use never waits on its address.
 */
export class RateLimiter extends DurableObject<Bindings> {
  /** The key's limit; null: unknown or revoked; undefined: never read (or forgotten). */
  private limit: number | null | undefined = undefined;
  private limitReadAt = 0;
  private reading: Promise<number | null> | null = null;
  private window = { start: 0, count: 0 };
  /** The pending write of the window (persistWindow). */
  private writing: ReturnType<typeof setTimeout> | null = null;
  private loaded: Promise<void>;

  constructor(ctx: DurableObjectState, env: Bindings) {
    super(ctx, env);
    // The window survives eviction, so a key cannot get a fresh allowance by waiting for one; the
    // limit does, so a known key stays known.
    this.loaded = ctx.blockConcurrencyWhile(async () => {
      const stored = await ctx.storage.get<{ start: number; count: number }>("window");
      if (stored) this.window = stored;
      const known = await ctx.storage.get<{ limit: number; readAt: number }>("limit");
      if (known) [this.limit, this.limitReadAt] = [known.limit, known.readAt];
    });
  }

  /**
   * Counts `cost` requests (a batch counts its operations): all of them fit in the window, or none
   * is counted. Allowed, it also counts a lease (a share of what is left) for the calling isolate
   * to spend itself.
   */
  async consume(keyHash: string, clientAddress: string, cost = 1): Promise<RateLimitLease> {
    await this.loaded;
    const limit = await this.limitOf(keyHash, clientAddress);
    const now = Date.now();
    if (limit !== null && typeof limit === "object") {
      return {
        known: false,
        blocked: true,
        allowed: false,
        limit: 0,
        remaining: 0,
        leased: 0,
        ...windowAt(now),
        resetSeconds: limit.retryAfter,
      };
    }
    if (limit === null) {
      await withOneRetry(() => this.guardOf(clientAddress).fail());
      return { known: false, blocked: false, allowed: false, limit: 0, remaining: 0, leased: 0, ...windowAt(now) };
    }
    const decision = countRequests(this.window, limit, cost, now);
    this.persistWindow();
    return decision;
  }

  /**
   * Counts `cost` requests against a limit the caller names: a person's, which is the same for
   * everyone (PERSON_RATE_LIMIT), so nothing is read. This object is then one person's in one
   * organisation, named by both.
   */
  async consumeAt(limit: number, cost = 1): Promise<RateLimitLease> {
    await this.loaded;
    const decision = countRequests(this.window, limit, cost, Date.now());
    this.persistWindow();
    return decision;
  }

  /**
   * Writes the window within a second, once for however many calls came meanwhile: a write per
   * call cost more CPU than the count itself (bench/results/README.md "CPU per call"). Counting is exact
   * in memory, where every call is decided; the storage copy is for after an eviction, which comes
   * only after seconds without a call, well after the pending write. What a crash of the runtime
   * within that second loses is at most that second's count.
   */
  private persistWindow(): void {
    if (this.writing) return;
    this.writing = setTimeout(() => {
      this.writing = null;
      void this.ctx.storage.put("window", this.window);
    }, WINDOW_WRITE_MS);
  }

  /**
   * The statement of a request this object allowed found the key revoked: read it again next
   * time (through the guard), and count the refusal against the address.
   */
  async forget(clientAddress: string): Promise<void> {
    this.limit = undefined;
    await this.ctx.storage.delete("limit");
    await this.guardOf(clientAddress).fail();
  }

  private async limitOf(keyHash: string, clientAddress: string): Promise<number | null | GuardDecision> {
    if (this.limit !== undefined && Date.now() - this.limitReadAt <= LIMIT_REFRESH_MS) return this.limit;
    // A key known to be valid refreshes its limit whatever its address does; any other is looked
    // up only if the address is not blocked.
    if (typeof this.limit !== "number") {
      const guard = await withOneRetry(() => this.guardOf(clientAddress).check());
      if (guard.blocked) return guard;
    }
    // The database's modules are loaded when a key is first looked up, not at the isolate's start.
    this.reading ??= import("./key-limit.ts")
      .then(({ keyLimitOf }) => keyLimitOf(this.env, keyHash))
      .then(async (limit) => {
        const wasKnown = typeof this.limit === "number";
        this.limit = limit;
        this.limitReadAt = Date.now();
        // An unknown key writes nothing: a flood of random keys leaves no storage behind.
        if (limit !== null) await this.ctx.storage.put("limit", { limit, readAt: this.limitReadAt });
        else if (wasKnown) await this.ctx.storage.delete("limit");
        return limit;
      })
      .finally(() => (this.reading = null));
    return this.reading;
  }

  private guardOf(clientAddress: string) {
    return this.env.AUTH_GUARD.get(this.env.AUTH_GUARD.idFromName(clientOf(clientAddress)));
  }
}
