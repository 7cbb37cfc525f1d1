import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { DatabaseUnavailableError } from "../../db/client.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";
import { PERSON_RATE_LIMIT } from "../../domain/limits.ts";
import { callerRefusals } from "../../services/refusals.ts";
import type { AppEnv, Bindings } from "../env.ts";
import { databaseFor, serviceContext } from "../http/context.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import { withOneRetry } from "../rate-limit/durable-retry.ts";
import { IsolateBudgets, type RateLimitDecision } from "../rate-limit/lease.ts";

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

/** The rate-limit budgets of this isolate (functions/rate-limit/lease.ts). */
const budgets = new IsolateBudgets(KEYS_KEPT);

/**
 * Counts `cost` requests of the key: from this isolate's budget when it holds enough, otherwise
 * by the key's RateLimiter (a retryable error of the object tried once more on a new stub,
 * rate-limit/durable-retry.ts). It fails only when the database or the object is out of reach.
 */
export function consumeRateLimit(env: Bindings, keyHash: string, address: string, cost = 1): Promise<RateLimitDecision> {
  return budgets.consume(keyHash, cost, (need) =>
    withOneRetry(() => limiterOf(env, keyHash).consume(keyHash, address, need)).catch((error: unknown) => {
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

/** How long an isolate trusts what it read of a session's person and organisation. */
const HOLDER_REFRESH_MS = 60_000;
/** The person and organisation of each session this isolate has seen, when read (a session's token never changes hands). */
const holders = new Map<string, { userId: string; orgId: string; readAt: number }>();

/**
 * The limiter of a person in the organisation their session acts for, read once a minute per
 * isolate: one round trip then, none on the calls between. A session that has ended is 401 (as
 * its call's statement would answer). The read has a database handle of its own: the call's
 * handle counts the call's own statements (http/handler.ts decides from them whether a 400 still owes the
 * caller its 401 or 403).
 */
async function personLimiterOf(c: Context<AppEnv>, sessionToken: string): Promise<string> {
  let holder = holders.get(sessionToken);
  if (!holder || Date.now() - holder.readAt > HOLDER_REFRESH_MS) {
    const { sessionHolder } = await import("../../services/sessions.ts");
    const read = await sessionHolder({ ctx: { db: databaseFor(c.env) }, input: { sessionToken } });
    if (!read) {
      holders.delete(sessionToken);
      throw callerRefusals.sessionEnded();
    }
    if (holders.size >= KEYS_KEPT) holders.clear();
    holder = { ...read, readAt: Date.now() };
    holders.set(sessionToken, holder);
  }
  return `person:${holder.orgId}:${holder.userId}`;
}

/** The installation each access token this isolate has seen is of, and its rate limit (a token never changes installation). */
const installationsOfTokens = new Map<string, { limiter: string; limit: number; readAt: number }>();

/**
 * The limiter of an application's installation, all its tokens together (docs/apps.md "Limits"),
 * read once a minute per isolate as a person's is. A token that is unknown, expired or revoked is
 * 401 here, as its call's statement would answer.
 */
async function installationLimiterOf(c: Context<AppEnv>, accessTokenHash: string): Promise<{ limiter: string; limit: number }> {
  let held = installationsOfTokens.get(accessTokenHash);
  if (!held || Date.now() - held.readAt > HOLDER_REFRESH_MS) {
    const { tokenInstallation } = await import("../../services/oauth-tokens.ts");
    const read = await tokenInstallation({ ctx: { db: databaseFor(c.env) }, input: { accessTokenHash } });
    if (!read) {
      installationsOfTokens.delete(accessTokenHash);
      throw callerRefusals.accessTokenUnknown();
    }
    if (installationsOfTokens.size >= KEYS_KEPT) installationsOfTokens.clear();
    held = { limiter: `installation:${read.installationId}`, limit: read.rateLimit, readAt: Date.now() };
    installationsOfTokens.set(accessTokenHash, held);
  }
  return held;
}

/** A session switched organisation: its next call reads where it acts now. */
export const forgetSessionHolder = (sessionToken: string) => holders.delete(sessionToken);

/** Counts `cost` requests of a person in an organisation (or an installation) against `limit`, as a key's are counted. */
function consumePersonRateLimit(env: Bindings, limiter: string, cost = 1, limit = PERSON_RATE_LIMIT): Promise<RateLimitDecision> {
  return budgets.consume(limiter, cost, (need) =>
    withOneRetry(() => limiterOf(env, limiter).consumeAt(limit, need)).catch((error: unknown) => {
      throw new DatabaseUnavailableError(error);
    }),
  );
}

/** The 429 of a caller over its limit, with the headers of the decision and Retry-After. */
function overLimit(c: Context<AppEnv>, decision: RateLimitDecision): DomainError {
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
  c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
  return new DomainError(
    "rate_limited",
    `rate limit of ${decision.limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`,
    {
      retryAfter: decision.resetSeconds,
    },
  );
}

/** After the call: the decision's headers, unless a batch that counted its further operations set its own, later figures. */
function withHeaders(c: Context<AppEnv>, decision: RateLimitDecision): void {
  if (c.res.headers.has(RESPONSE_HEADERS.rateLimitRemaining.name)) return;
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.res.headers.set(name, value);
}

/**
 * Rate limits (docs/api.md "Limits"), counted before any work: a key by its RateLimiter Durable
 * Object, at its own limit; a signed-in person by one per person and organisation, at
 * PERSON_RATE_LIMIT, all their sessions together. Every response carries RateLimit-Limit,
 * -Remaining and -Reset; a limited call answers 429 with Retry-After and changes nothing. 401
 * comes before 429, so a limited call still learns first that its key or session is bad. An
 * address that presented too many refused keys is answered 429 before an unknown key of it is
 * looked up (functions/rate-limit/auth-guard.ts).
 */
export const rateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const actor = c.get("actor");
  if ("sessionToken" in actor) return limitPerson(c, actor.sessionToken, next);
  if ("accessTokenHash" in actor) return limitInstallation(c, actor.accessTokenHash, next);
  if (!("keyHash" in actor)) return next();
  const address = clientAddress(c);
  const decision = await consumeRateLimit(c.env, actor.keyHash, address);
  if (decision.blocked) {
    c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
    throw addressBlocked(decision.resetSeconds);
  }
  if (!decision.known) throw callerRefusals.keyUnknown();
  const forget = () => forgetRevokedKey(c.env, c.executionCtx, actor.keyHash, address);
  if (!decision.allowed) {
    const { describeCaller } = await import("../../services/organisation.ts");
    await describeCaller({ ctx: serviceContext(c), input: {} }).catch((error: unknown) => {
      if (error instanceof DomainError && error.code === "invalid_key") forget();
      throw error;
    });
    throw overLimit(c, decision);
  }
  await next();
  // The limiter knew the key, but the call's own statement found it revoked since.
  if (c.res.status === 401) forget();
  withHeaders(c, decision);
});

/** The rate limit of a signed-in person, in the organisation their session acts for. */
async function limitPerson(c: Context<AppEnv>, sessionToken: string, next: () => Promise<void>): Promise<void> {
  const decision = await consumePersonRateLimit(c.env, await personLimiterOf(c, sessionToken));
  if (!decision.allowed) throw overLimit(c, decision);
  await next();
  withHeaders(c, decision);
}

/** The rate limit of an application's installation. */
async function limitInstallation(c: Context<AppEnv>, accessTokenHash: string, next: () => Promise<void>): Promise<void> {
  const { limiter, limit } = await installationLimiterOf(c, accessTokenHash);
  const decision = await consumePersonRateLimit(c.env, limiter, 1, limit);
  if (!decision.allowed) throw overLimit(c, decision);
  await next();
  withHeaders(c, decision);
}

/** What `more` requests of the caller cost: its key's, its installation's or its person's limiter. */
async function consumeCallerMore(c: Context<AppEnv>, actor: Exclude<Actor, { orgId: string }>, more: number): Promise<RateLimitDecision> {
  if ("keyHash" in actor) return consumeRateLimit(c.env, actor.keyHash, clientAddress(c), more);
  if ("accessTokenHash" in actor) {
    const { limiter, limit } = await installationLimiterOf(c, actor.accessTokenHash);
    return consumePersonRateLimit(c.env, limiter, more, limit);
  }
  return consumePersonRateLimit(c.env, await personLimiterOf(c, actor.sessionToken), more);
}

/**
 * Counts `more` requests beyond the one the middleware counted (a batch counts each of its
 * operations). Over the limit, nothing more is counted and the call answers 429.
 */
export async function consumeMore(c: Context<AppEnv>, more: number, what: string): Promise<void> {
  const actor = c.get("actor");
  if (more <= 0 || "orgId" in actor) return;
  const decision = await consumeCallerMore(c, actor, more);
  // Revoked since the middleware counted the call.
  if (!decision.known) throw callerRefusals.keyUnknown();
  if (more + 1 > decision.limit) {
    throw new DomainError(
      "rate_limited",
      `${what} counts ${more + 1} requests, more than the limit of ${decision.limit} a minute allows at all; send at most ${decision.limit} operations at a time`,
      {
        retryAfter: decision.resetSeconds,
      },
    );
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) c.header(name, value);
  if (decision.allowed) return;
  c.header(RESPONSE_HEADERS.retryAfter.name, String(decision.resetSeconds));
  throw new DomainError(
    "rate_limited",
    `${what} counts ${more + 1} requests against the limit of ${decision.limit} a minute, and only ${decision.remaining + 1} were left; retry in ${decision.resetSeconds} s or send fewer operations`,
    {
      retryAfter: decision.resetSeconds,
    },
  );
}
