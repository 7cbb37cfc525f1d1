import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { DatabaseUnavailableError } from "../../db/client.ts";
import { describeCaller } from "../../services/organisation.ts";
import { serviceContext } from "../context.ts";
import type { AppEnv, Bindings } from "../env.ts";
import type { RateLimitDecision } from "../rate-limit/limiter.ts";
import { DomainError } from "../../domain/errors.ts";

/**
 * The address the request came from: Cloudflare sets CF-Connecting-IP on every request and
 * overwrites one a client sends (locally, miniflare sets it when the client did not).
 */
export function clientAddress(c: Context<AppEnv>): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

/** Asks the key's RateLimiter for a decision; it fails only when the database is out of reach. */
export function consumeRateLimit(env: Bindings, keyHash: string, address: string): Promise<RateLimitDecision> {
  const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(keyHash));
  return limiter.consume(keyHash, address).catch((error: unknown) => {
    throw new DatabaseUnavailableError(error);
  });
}

/**
 * A key the limiter allowed was found revoked by a statement since: the limiter reads it again
 * next time, and the refusal counts against the address.
 */
export function forgetRevokedKey(env: Bindings, ctx: ExecutionContext, keyHash: string, address: string): void {
  const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(keyHash));
  ctx.waitUntil(limiter.forget(address).catch(() => {}));
}

/** The 429 for an address that has presented too many refused keys. */
export function addressBlocked(retryAfter: number): DomainError {
  return new DomainError("rate_limited", `too many refused API keys from this address; retry in ${retryAfter} s`, { retryAfter });
}

/**
 * Per-key rate limit (docs/api.md "Limits"), counted by the key's RateLimiter Durable Object before
 * any work. Every keyed response carries RateLimit-Limit, -Remaining and -Reset; a limited call
 * answers 429 with Retry-After and changes nothing. 401 comes before 429, so a limited call
 * still learns first that its key is bad. An address that presented too many refused keys is
 * answered 429 before an unknown key of it is looked up (functions/rate-limit/auth-guard.ts).
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const actor = c.var.actor;
  if (!("keyHash" in actor)) return next();
  const address = clientAddress(c);
  const decision = await consumeRateLimit(c.env, actor.keyHash, address);
  if (decision.blocked) {
    c.header("Retry-After", String(decision.resetSeconds));
    throw addressBlocked(decision.resetSeconds);
  }
  if (!decision.known) throw new DomainError("invalid_key", "the API key is unknown or has been revoked");
  const headers = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
  };
  const forget = () => forgetRevokedKey(c.env, c.executionCtx, actor.keyHash, address);
  if (!decision.allowed) {
    await describeCaller({ ctx: serviceContext(c), input: {} }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === "invalid_key") forget();
      throw error;
    });
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header("Retry-After", String(decision.resetSeconds));
    throw new DomainError("rate_limited", `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`, {
      retryAfter: decision.resetSeconds,
    });
  }
  await next();
  // The limiter knew the key, but the call's own statement found it revoked since.
  if (c.res.status === 401) forget();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
