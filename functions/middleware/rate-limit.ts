import { createMiddleware } from "hono/factory";
import { DatabaseUnavailableError } from "../../db/client.ts";
import { describeCaller } from "../../db/queries/organisation.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";

/**
 * Per-key rate limit (SPEC "Rate limits"), counted by the key's RateLimiter Durable Object before
 * any work. Every keyed response carries RateLimit-Limit, -Remaining and -Reset; a limited call
 * answers 429 with Retry-After and changes nothing. SPEC puts 401 before 429, so a limited call
 * still learns first that its key is bad.
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const actor = c.var.actor;
  if (!("keyHash" in actor)) return next();
  const limiter = c.env.RATE_LIMITER.get(c.env.RATE_LIMITER.idFromName(actor.keyHash));
  // The limiter fails only when it cannot read the key's limit: the database is out of reach.
  const decision = await limiter.consume(actor.keyHash).catch((error: unknown) => {
    throw new DatabaseUnavailableError(error);
  });
  if (!decision.known) throw new ApiError("invalid_key", "the API key is unknown or has been revoked");
  const headers = {
    "RateLimit-Limit": String(decision.limit),
    "RateLimit-Remaining": String(decision.remaining),
    "RateLimit-Reset": String(decision.resetSeconds),
  };
  if (!decision.allowed) {
    await describeCaller(c.var.db, actor);
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header("Retry-After", String(decision.resetSeconds));
    throw new ApiError("rate_limited", `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`, {
      retryAfter: decision.resetSeconds,
    });
  }
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
