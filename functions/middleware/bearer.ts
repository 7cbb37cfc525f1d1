import { hashApiKey, isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import { CREDENTIAL_PREFIXES, hashCredential, isCredential } from "../../domain/crypto/oauth.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";

/** The resource (RFC 8707) an access token must be for on this request, and whether one bound to none is taken. */
export interface Audience {
  resource: string;
  unboundAccepted: boolean;
}

/** Requests made for another resource than the API (the MCP server's inner calls, functions/mcp/dispatch.ts). */
const audiences = new WeakMap<Request, Audience>();

/** Marks an in-process request as made for `audience`: a client cannot set it (it is no header). */
export function withAudience(request: Request, audience: Audience): Request {
  audiences.set(request, audience);
  return request;
}

/** The audience of a request: the API at its origin (a token bound to none taken too), unless it was marked otherwise. */
export const audienceOf = (request: Request): Audience =>
  audiences.get(request) ?? { resource: new URL(request.url).origin, unboundAccepted: true };

/**
 * Reads `Authorization: Bearer <key or access token>`. A malformed header, key or token is refused
 * here without a database round trip; a well-formed one becomes the actor (its hash) that the
 * route's single statement checks: an API key against api_keys, an OAuth application's access
 * token (docs/apps.md) against oauth_tokens, for the request's audience.
 */
export function actorOfBearer(header: string, audience: Audience): Actor {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new DomainError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (key.startsWith(CREDENTIAL_PREFIXES.accessToken)) {
    if (!isCredential("accessToken", key)) throw new DomainError("invalid_key", "the access token is malformed");
    return { accessTokenHash: hashCredential(key), ...audience };
  }
  if (!isWellFormedApiKey(key)) throw new DomainError("invalid_key", "the API key is malformed");
  return { keyHash: hashApiKey(key) };
}
