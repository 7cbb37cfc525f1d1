import { verifyRealtimeToken } from "../functions/lib/realtime-token.ts";
import { EVENT_SCOPES } from "../functions/lib/events.ts";

/** Who a socket belongs to, decided before it opens. */
export interface Identity {
  orgId: string;
  /** The event read scopes the socket may receive (its connection tags). */
  scopes: string[];
}

export interface RoomEnv {
  /** Shared with the Worker: publishes carry it, tokens are signed under it. */
  REALTIME_SECRET?: string;
  /** The opsroom API (the Worker), asked to check API keys: one source of truth for keys. */
  API_URL?: string;
}

const EVENT_READ_SCOPES = new Set<string>(Object.values(EVENT_SCOPES));

function refusal(status: 401 | 403 | 503, code: string, message: string): Response {
  return Response.json({ success: false, version: "v1", message, error: { code } }, { status });
}

/**
 * Checks the credential of a connection to room `orgId`: a realtime token (verified here) or an
 * API key (verified by the API's GET /v1). Answers the identity, or the refusal to send instead
 * of opening the socket: 401 for a bad credential, 403 for another organisation's room.
 */
export async function authenticate(url: URL, orgId: string, env: RoomEnv): Promise<Identity | Response> {
  const token = url.searchParams.get("token");
  const apiKey = url.searchParams.get("apiKey");
  let identity: Identity;
  if (token) {
    const claims = env.REALTIME_SECRET ? await verifyRealtimeToken(env.REALTIME_SECRET, token) : null;
    if (!claims) return refusal(401, "invalid_key", "the realtime token is invalid or has expired");
    identity = { orgId: claims.orgId, scopes: claims.scopes };
  } else if (apiKey) {
    let response: Response;
    try {
      response = await fetch(`${env.API_URL ?? "http://127.0.0.1:8787"}/v1`, { headers: { authorization: `Bearer ${apiKey}` } });
    } catch {
      return refusal(503, "unavailable", "the API could not be reached to check the key; retry");
    }
    if (response.status === 401) return refusal(401, "invalid_key", "the API key is unknown or has been revoked");
    if (!response.ok) return refusal(503, "unavailable", "the API could not check the key; retry");
    const self = (await response.json()) as { organisation: string; scopes: { scope: string }[] };
    identity = { orgId: self.organisation, scopes: self.scopes.map((s) => s.scope) };
  } else {
    return refusal(401, "unauthorized", "connect with query: { apiKey } or query: { token }");
  }
  if (identity.orgId !== orgId) return refusal(403, "forbidden", "the credential belongs to another organisation's room");
  return { orgId, scopes: identity.scopes.filter((scope) => EVENT_READ_SCOPES.has(scope)) };
}
