import { Hono, type Context } from "hono";
import { createMiddleware } from "hono/factory";
import { z } from "zod";
import { hashApiKey, isWellFormedApiKey } from "../domain/crypto/api-keys.ts";
import { bearerToken, secretsEqual } from "../domain/crypto/secrets.ts";
import { DomainError } from "../domain/errors.ts";
import { UUID_PATTERN } from "../domain/ids.ts";
import {
  DeliveryReportSchema,
  DisableWebhookSchema,
  SocketCredentialSchema,
  type SocketCredential,
  type SocketIdentity,
} from "../realtime/protocol.ts";
import { findActiveKey } from "../services/api-keys.ts";
import { findLiveGrant } from "../services/app-access.ts";
import type { SystemContext } from "../services/context.ts";
import { missedEvents, roomStart } from "../services/events.ts";
import { describeCaller } from "../services/organisation.ts";
import { callerRefusals } from "../services/refusals.ts";
import { findLiveSession } from "../services/sessions.ts";
import { disableWebhook, recordAttempts, webhookTargets } from "../services/webhooks.ts";
import { pathOf } from "./entry-points.ts";
import { settingsOf, type AppEnv } from "./env.ts";
import { serviceContext } from "./http/context.ts";
import { addressBlocked, consumeRateLimit, forgetRevokedKey } from "./middleware/rate-limit.ts";

/**
 * Endpoints for the realtime room only, authenticated by the shared REALTIME_SECRET: they are
 * not part of the public API and not in its registry. Without the secret every path here is a
 * plain 404, as if nothing were there. The room asks where to start when it has no memory, for
 * the events it missed after a gap, for the webhooks to deliver to (secrets included), who a
 * socket's credential belongs to, and reports delivery attempts. Every body and parameter is
 * parsed against realtime/protocol.ts: a malformed one is a 400, never an error inside.
 */
export const internal = new Hono<AppEnv>();

internal.use(
  "*",
  createMiddleware<AppEnv>(async (c, next) => {
    const secret = settingsOf(c.env).realtime?.secret;
    if (!secret || !secretsEqual(bearerToken(c.req.header("authorization")), secret)) throw new DomainError("not_found", "not found");
    await next();
  }),
);

internal.use(
  "/internal/rooms/:orgId/*",
  createMiddleware<AppEnv>(async (c, next) => {
    if (!UUID_PATTERN.test(c.req.param("orgId") ?? "")) throw new DomainError("invalid_field", "orgId must be a UUID", { field: "orgId" });
    await next();
  }),
);

const orgIdOf = (c: Context<AppEnv>) => c.req.param("orgId")!;

/** The system's context for a call of the room: the request's database handle. */
const systemContext = (c: Context<AppEnv>): SystemContext => serviceContext(c);

/** A body parsed against its protocol schema; 400 invalid_json or invalid_field otherwise. */
async function bodyOf<S extends z.ZodType>(c: Context<AppEnv>, schema: S): Promise<z.output<S>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new DomainError("invalid_json", "the body is not valid JSON");
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join(".") || "body";
    throw new DomainError("invalid_field", `${field} is not what the room protocol allows`, { field });
  }
  return parsed.data;
}

const EventsQuery = z.strictObject({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

internal.get(pathOf("roomStart"), async (c) =>
  c.json({ watermark: await roomStart({ ctx: systemContext(c), input: { orgId: orgIdOf(c) } }) }),
);

internal.get(pathOf("roomEvents"), async (c) => {
  const query = EventsQuery.safeParse(c.req.query());
  if (!query.success) throw new DomainError("invalid_field", "after and limit must be whole numbers (limit 1 to 1000)", { field: "after" });
  return c.json({ events: await missedEvents({ ctx: systemContext(c), input: { orgId: orgIdOf(c), ...query.data } }) });
});

internal.get(pathOf("roomWebhooks"), async (c) =>
  c.json({ webhooks: await webhookTargets({ ctx: systemContext(c), input: { orgId: orgIdOf(c) } }) }),
);

internal.post(pathOf("roomDeliveries"), async (c) => {
  const { attempts } = await bodyOf(c, DeliveryReportSchema);
  await recordAttempts({ ctx: systemContext(c), input: { orgId: orgIdOf(c), attempts } });
  return c.json({ recorded: attempts.length });
});

internal.post(pathOf("roomDisableWebhook"), async (c) => {
  const webhookId = c.req.param("webhookId");
  if (!UUID_PATTERN.test(webhookId)) throw new DomainError("invalid_field", "webhookId must be a UUID", { field: "webhookId" });
  const { reason } = await bodyOf(c, DisableWebhookSchema);
  await disableWebhook({ ctx: systemContext(c), input: { orgId: orgIdOf(c), webhookId, reason } });
  return c.json({ disabled: true });
});

/**
 * Who a socket's credential belongs to, before the room opens it. An API key is checked as any
 * call's would be (its shape, its address's refused keys, its rate limit, its state); a realtime
 * token, whose signature the room has verified, must name a key that is not revoked (and opening
 * it counts against that key's rate limit too), a session still signed in, or an application's
 * grant still live.
 */
internal.post(pathOf("roomSockets"), async (c) => c.json(await identify(c, await bodyOf(c, SocketCredentialSchema))));

/** Counts a socket against its key's rate limit: 429 for an address blocked or a key over its limit. */
async function admit(c: Context<AppEnv>, keyHash: string, clientAddress: string): Promise<void> {
  const decision = await consumeRateLimit(c.env, keyHash, clientAddress);
  if (decision.blocked) {
    c.header("Retry-After", String(decision.resetSeconds));
    throw addressBlocked(decision.resetSeconds);
  }
  if (!decision.known) throw new DomainError("invalid_key", "the API key is unknown or has been revoked");
  if (!decision.allowed) {
    c.header("Retry-After", String(decision.resetSeconds));
    throw new DomainError("rate_limited", `rate limit of ${decision.limit} requests per minute exceeded`, {
      retryAfter: decision.resetSeconds,
    });
  }
}

async function identify(c: Context<AppEnv>, credential: SocketCredential): Promise<SocketIdentity> {
  if ("keyId" in credential) {
    const key = await findActiveKey({ ctx: systemContext(c), input: { keyId: credential.keyId } });
    if (!key) throw new DomainError("invalid_key", "the key this realtime token was minted from is unknown or has been revoked");
    await admit(c, key.keyHash, credential.clientAddress);
    return { orgId: key.orgId, keyId: key.keyId, scopes: key.scopes };
  }
  if ("sessionId" in credential) {
    const session = await findLiveSession({ ctx: systemContext(c), input: { sessionId: credential.sessionId } });
    if (!session) throw new DomainError("unauthorized", "the session this realtime token was minted for has ended");
    if (session.emailUnverified) throw callerRefusals.emailUnverified();
    return { orgId: session.orgId, keyId: null, sessionId: credential.sessionId, userId: session.userId, scopes: session.scopes };
  }
  if ("grantId" in credential) {
    const grant = await findLiveGrant({ ctx: systemContext(c), input: { grantId: credential.grantId } });
    if (!grant) throw new DomainError("unauthorized", "the application's authorization this realtime token was minted with has ended");
    if (grant.emailUnverified) throw callerRefusals.emailUnverified();
    const { orgId, grantId, installationId, appId, userId, scopes } = grant;
    return { orgId, keyId: null, grantId, installationId, appId, ...(userId ? { userId } : {}), scopes };
  }
  if (!isWellFormedApiKey(credential.apiKey)) throw new DomainError("invalid_key", "the API key is malformed");
  const keyHash = hashApiKey(credential.apiKey);
  await admit(c, keyHash, credential.clientAddress);
  c.set("actor", { keyHash });
  const caller = await describeCaller({ ctx: serviceContext(c), input: {} }).catch((error: unknown) => {
    if (error instanceof DomainError && error.code === "invalid_key")
      forgetRevokedKey(c.env, c.executionCtx, keyHash, credential.clientAddress);
    throw error;
  });
  return { orgId: caller.orgId, keyId: caller.keyId!, scopes: caller.scopes };
}
