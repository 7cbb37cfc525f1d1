import { verifyRealtimeToken } from "../domain/crypto/realtime-token.ts";
import type { ErrorCode } from "../domain/errors.ts";
import { parseTypes, type EventFilter } from "../domain/event-filter.ts";
import { EVENT_SCOPES } from "../domain/events.ts";
import { UUID_PATTERN } from "../domain/ids.ts";
import { SocketIdentitySchema, type SocketCredential } from "./protocol.ts";

/** Who a socket belongs to, decided before it opens. */
export interface Identity {
  orgId: string;
  /** The API key the socket was opened with, or the key its token was minted from; null for a person's token. */
  keyId: string | null;
  /** For a person's token: the session it was minted for, and the person. */
  sessionId?: string | undefined;
  userId?: string | undefined;
  /**
   * For an OAuth application's token: its grant (closed when revoked), installation (closed when it
   * is uninstalled) and application (its own writes); `userId` is then the person it acts for, if any.
   */
  grantId?: string | undefined;
  installationId?: string | undefined;
  appId?: string | undefined;
  /** The event read scopes the socket may receive (its connection tags). */
  scopes: string[];
  /** What the socket asked for, within its scopes: the connection query's types, projectId, recordId, excludeOwn. */
  filter: EventFilter;
}

export interface RoomEnv {
  /** Shared with the Worker: publishes carry it, tokens are signed under it. */
  REALTIME_SECRET?: string;
  /** The opsroom API (the Worker), asked who a credential belongs to: one source of truth for keys. */
  API_URL?: string;
  /** Jobs one webhook may have queued (realtime/webhooks/backlog.ts); unset: 10 000. */
  WEBHOOK_BACKLOG_LIMIT?: string;
  /**
   * How long the room trusts its copy of the webhooks without a notice (webhooks/targets.ts); unset:
   * a minute. Set only by a test's room of its own, never deployed.
   */
  WEBHOOK_TARGETS_MAX_AGE_MS?: string;
  /**
   * Subrequests one invocation may make (realtime/subrequests.ts): unset, 1000 (Workers Paid); 50
   * on Workers Free. The alarm's drain stays under it.
   */
  SUBREQUESTS_PER_INVOCATION?: string;
  /**
   * "true" puts Workers' per-invocation limits in front of the room's requests (connections.ts,
   * subrequests.ts):
   * development and the tests, whose workerd has none of them. Never deployed.
   */
  MODEL_WORKERS_LIMITS?: string;
}

const EVENT_READ_SCOPES = new Set<string>(Object.values(EVENT_SCOPES));

/** A refusal in the API's error shape: one of its closed codes, and a request id to quote. */
function refusal(status: 400 | 401 | 404 | 503, code: ErrorCode, message: string, field?: string): Response {
  return Response.json(
    { success: false, version: "v1", message, error: { code, ...(field ? { field } : {}), requestId: crypto.randomUUID() } },
    { status },
  );
}

/**
 * The filter of the connection query, as GET /v1/events takes it (types, projectId, recordId,
 * excludeOwn), or the 400 naming the parameter that is wrong. Own writes are filled in once the
 * credential is known.
 */
export function socketFilter(query: URLSearchParams): (Omit<EventFilter, "excludeOwn"> & { excludeOwn: boolean }) | Response {
  const invalid = (field: string, message: string) => refusal(400, "invalid_field", `${field} ${message}`, field);
  const list = query.get("types");
  // The bounds GET /v1/events sets: the list is kept with the socket.
  if (list !== null && list.length > 1000) return invalid("types", "is longer than 1000 characters");
  const types = list === null ? { types: [], invalid: null } : parseTypes(list);
  if (types.types.length > 50) return invalid("types", "has more than 50 patterns");
  if (types.invalid !== null)
    return invalid("types", `has "${types.invalid.slice(0, 100)}", which is not "*", "<resource>.*" or "<resource>.<action>"`);
  const ids: Record<"projectId" | "recordId", string | null> = { projectId: null, recordId: null };
  for (const field of ["projectId", "recordId"] as const) {
    const value = query.get(field);
    if (value !== null && !UUID_PATTERN.test(value)) return invalid(field, "must be a UUID");
    ids[field] = value?.toLowerCase() ?? null;
  }
  const excludeOwn = query.get("excludeOwn");
  if (excludeOwn !== null && excludeOwn !== "true" && excludeOwn !== "false") return invalid("excludeOwn", 'must be "true" or "false"');
  return { types: types.types, ...ids, excludeOwn: excludeOwn === "true" };
}

/** The Worker's internal endpoint for this room, or null when the room is not configured to reach it. */
export function internalUrl(env: RoomEnv, orgId: string, path: string): string | null {
  return env.API_URL ? `${env.API_URL}/internal/rooms/${orgId}${path}` : null;
}

/**
 * Asks the Worker who the credential belongs to; a refusal (401; 403, a person whose address the
 * organisation requires confirmed; 429) is passed on as the Worker gave it.
 */
async function identify(env: RoomEnv, orgId: string, credential: SocketCredential): Promise<Omit<Identity, "filter"> | Response> {
  const url = internalUrl(env, orgId, "/sockets");
  if (!url || !env.REALTIME_SECRET) return refusal(503, "unavailable", "the realtime server is not configured to check credentials");
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${env.REALTIME_SECRET}`, "content-type": "application/json" },
      body: JSON.stringify(credential),
    });
  } catch {
    return refusal(503, "unavailable", "the API could not be reached to check the credential; retry");
  }
  if (response.status === 401 || response.status === 429) {
    return new Response(response.body, { status: response.status, headers: response.headers });
  }
  // A 403 is passed on only as the refusal of a person whose address is unconfirmed: any other is
  // the Worker misconfigured (a wrong secret), which the client cannot mend: 503 as below.
  if (response.status === 403) {
    const text = await response.text();
    const code = (() => {
      try {
        return (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
      } catch {
        return undefined;
      }
    })();
    if (code === "email_unverified") return new Response(text, { status: 403, headers: response.headers });
    return refusal(503, "unavailable", "the API could not check the credential; retry");
  }
  const identity = response.ok ? SocketIdentitySchema.safeParse(await response.json().catch(() => null)) : null;
  if (!identity?.success) return refusal(503, "unavailable", "the API could not check the credential; retry");
  return identity.data;
}

/**
 * Checks the credential of a connection to room `orgId`: a realtime token (its signature checked
 * here, then its key asked of the Worker) or an API key (checked by the Worker as any call's
 * key is). Answers the identity, or the refusal to send instead of opening the socket: 401 for a
 * bad credential, 404 for another organisation's room (as another organisation's id is everywhere), 429 for an address or key over its limit.
 */
export async function authenticate(request: Request, orgId: string, env: RoomEnv): Promise<Identity | Response> {
  const url = new URL(request.url);
  const token = url.searchParams.get("token");
  const apiKey = url.searchParams.get("apiKey");
  const clientAddress = request.headers.get("cf-connecting-ip") ?? "unknown";
  // Another organisation's room is not found, as another organisation's id is everywhere in the API.
  const otherRoom = () => refusal(404, "not_found", "no room of this credential's organisation has this id");
  let identity: Omit<Identity, "filter"> | Response;
  if (token) {
    const claims = env.REALTIME_SECRET ? await verifyRealtimeToken(env.REALTIME_SECRET, token) : null;
    if (!claims) return refusal(401, "invalid_key", "the realtime token is invalid or has expired");
    if (claims.orgId !== orgId) return otherRoom();
    const credential = claims.keyId
      ? { keyId: claims.keyId, clientAddress }
      : claims.grantId
        ? { grantId: claims.grantId, clientAddress }
        : { sessionId: claims.sessionId!, clientAddress };
    const key = await identify(env, orgId, credential);
    // A token carries a subset of its key's scopes, fixed when it was minted.
    identity = key instanceof Response ? key : { ...key, scopes: claims.scopes.filter((scope) => key.scopes.includes(scope)) };
  } else if (apiKey) {
    identity = await identify(env, orgId, { apiKey, clientAddress });
  } else {
    return refusal(401, "unauthorized", "connect with query: { apiKey } or query: { token }");
  }
  if (identity instanceof Response) return identity;
  if (identity.orgId !== orgId) return otherRoom();
  // The filter is checked after the credential, as every API call checks its key before its input.
  const wanted = socketFilter(url.searchParams);
  if (wanted instanceof Response) return wanted;
  const scopes = identity.scopes.filter((scope) => EVENT_READ_SCOPES.has(scope));
  // A socket's own writes: its key's (a key's token's too), its person's, or its application's
  // (whoever it acts for, as the feed counts an application's writes).
  const own = identity.sessionId
    ? { userId: identity.userId ?? null }
    : identity.appId
      ? { appId: identity.appId }
      : { keyId: identity.keyId };
  const filter = { ...wanted, excludeOwn: wanted.excludeOwn ? own : null };
  if (identity.sessionId) return { orgId, keyId: null, sessionId: identity.sessionId, userId: identity.userId, scopes, filter };
  if (identity.grantId) {
    const { grantId, installationId, appId, userId } = identity;
    return { orgId, keyId: null, grantId, installationId, appId, ...(userId ? { userId } : {}), scopes, filter };
  }
  return { orgId, keyId: identity.keyId, scopes, filter };
}
