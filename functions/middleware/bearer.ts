import { hashApiKey, isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import { CREDENTIAL_PREFIXES, hashCredential, isCredential } from "../../domain/crypto/oauth.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";

/**
 * Reads `Authorization: Bearer <key or access token>`. A malformed header, key or token is refused
 * here without a database round trip; a well-formed one becomes the actor (its hash) that the
 * route's single statement checks: an API key against api_keys, an OAuth application's access
 * token (docs/apps.md) against oauth_tokens, for `resource`, the API's origin (a token bound to
 * no resource is taken too).
 */
export function actorOfBearer(header: string, resource: string): Actor {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new DomainError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (key.startsWith(CREDENTIAL_PREFIXES.accessToken)) {
    if (!isCredential("accessToken", key)) throw new DomainError("invalid_key", "the access token is malformed");
    return { accessTokenHash: hashCredential(key), resource, unboundAccepted: true };
  }
  if (!isWellFormedApiKey(key)) throw new DomainError("invalid_key", "the API key is malformed");
  return { keyHash: hashApiKey(key) };
}
