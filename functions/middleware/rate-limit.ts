import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { DatabaseUnavailableError } from "../../db/client.ts";
import { describeCaller } from "../../services/organisation.ts";
import { serviceContext } from "../context.ts";
import type { AppEnv, Bindings } from "../env.ts";
import { IsolateBudgets, type RateLimitDecision } from "../rate-limit/lease.ts";
import { DomainError } from "../../domain/errors.ts";
import { RESPONSE_HEADERS } from "../headers.ts";

/**
 * The address the request came from: Cloudflare sets CF-Connecting-IP on every request and
 * overwrites one a client sends (locally, miniflare sets it when the client did not).
 */
export function clientAddress(c: Context<AppEnv>): string {
  return c.req.header("cf-connecting-ip") ?? "unknown";
}

/** The RateLimiter ids of the keys this isolate has seen (an id is a value, not tied to a request). */
const limiterIds = new Map<string, DurableObjectId>();
/** Keys whose limiter id and budget an isolate keeps; past that it starts again. */
const KEYS_KEPT = 10_000;

/** The key's RateLimiter: its id is derived (a hash) once per isolate, not on every call. */
function limiterOf(env: Bindings, keyHash: string) {
  let id = limiterIds.get(keyHash);
  if (!id) {
    if (limiterIds.size >= KEYS_KEPT) limiterIds.clear();
    id = env.RATE_LIMITER.idFromName(keyHash);
    limiterIds.set(keyHash, id);
  }
  return env.RATE_LIMITER.get(id);
}

/** The rate-limit budgets of this isolate (rate-limit/lease.ts). */
const budgets = new IsolateBudgets(KEYS_KEPT);

/**
 * Counts `cost` requests of the key: from this isolate's budget when it holds enough, otherwise
 * by the key's RateLimiter. It fails only when the database is out of reach.
 */
export function consumeRateLimit(env: Bindings, keyHash: string, address: string, cost = 1): Promise<RateLimitDecision> {
  return budgets.consume(keyHash, cost, (need) =>
    limiterOf(env, keyHash).consume(keyHash, address, need).catch((error: unknown) => {
      throw new DatabaseUnavailableError(error);
    }),
  );
}

/**
 * A key the limiter allowed was found revoked by a statement since: this isolate's budget is
 * dropped, the limiter reads the key again next time, and the refusal counts against the address.
 */
export function forgetRevokedKey(env: Bindings, ctx: ExecutionContext, keyHash: string, address: string): void {
  budgets.forget(keyHash);
  const limiter = limiterOf(env, keyHash);
  ctx.waitUntil(limiter.forget(address).catch(() => {}));
}

/** The 429 for an address that has presented too many refused keys. */
export function addressBlocked(retryAfter: number): DomainError {
  return new DomainError("rate_limited", `too many refused API keys from this address; retry in ${retryAfter} s`, { retryAfter });
}

/** RateLimit-Limit, -Remaining and -Reset of a decision. */
const rateLimitHeaders = (decision: RateLimitDecision) => ({
  [RESPONSE_HEADERS.rateLimitLimit.name]: String(decision.limit),
  [RESPONSE_HEADERS.rateLimitRemaining.name]: String(decision.remaining),
  [RESPONSE_HEADERS.rateLimitReset.name]: String(decision.resetSeconds),
});

/**
 * Per-key rate limit (docs/api.md "Limits"), counted by the key's RateLimiter Durable Object before
 * any work. Every keyed response carries RateLimit-Limit, -Remaining and -Reset; a limited call
 * answers 429 with Retry-After and changes nothing. 401 comes before 429, so a limited call
 * still learns first that its key is bad. An address that presented too many refused keys is
 * answered 429 before an unknown key of it is looked up (functions/rate-limit/auth-guard.ts).
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const actor = c.get("actor");
  if (!("keyHash" in actor)) return next();
  const address = clientAddress(c);
  const decision = await consumeRateLimit(c.env, actor.keyHash, address);
  if (decision.blocked) {
    c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
    throw addressBlocked(decision.resetSeconds);
  }
  if (!decision.known) throw new DomainError("invalid_key", "the API key is unknown or has been revoked");
  const headers = rateLimitHeaders(decision);
  const forget = () => forgetRevokedKey(c.env, c.executionCtx, actor.keyHash, address);
  if (!decision.allowed) {
    await describeCaller({ ctx: serviceContext(c), input: {} }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === "invalid_key") forget();
      throw error;
    });
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
    throw new DomainError("rate_limited", `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`, {
      retryAfter: decision.resetSeconds,
    });
  }
  await next();
  // The limiter knew the key, but the call's own statement found it revoked since.
  if (c.res.status === 401) forget();
  // A batch that counted its further operations has set its own, later figures.
  if (c.res.headers.has(RESPONSE_HEADERS.rateLimitRemaining.name)) return;
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});

/**
 * Counts `more` requests beyond the one the middleware counted (a batch counts each of its
 * operations). Over the limit, nothing more is counted and the call answers 429.
 */
export async function consumeMore(c: Context<AppEnv>, more: number, what: string): Promise<void> {
  const actor = c.get("actor");
  if (more <= 0 || !("keyHash" in actor)) return;
  const decision = await consumeRateLimit(c.env, actor.keyHash, clientAddress(c), more);
  // Revoked since the middleware counted the call.
  if (!decision.known) throw new DomainError("invalid_key", "the API key is unknown or has been revoked");
  if (more + 1 > decision.limit) {
    throw new DomainError("rate_limited", `${what} counts ${more + 1} requests, more than this key's limit of ${decision.limit} a minute allows at all; send at most ${decision.limit} operations at a time`, {
      retryAfter: decision.resetSeconds,
    });
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
  if (decision.allowed) return;
  c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
  throw new DomainError("rate_limited", `${what} counts ${more + 1} requests against the limit of ${decision.limit} a minute, and only ${decision.remaining + 1} were left; retry in ${decision.resetSeconds} s or send fewer operations`, {
    retryAfter: decision.resetSeconds,
  });
}
