import { hashApiKey, isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import type { Actor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";

/**
 * Reads `Authorization: Bearer <key>`. A malformed header or key is refused here without a
 * database round trip; a well-formed key becomes the actor (its hash) that the route's single
 * statement checks against api_keys.
 */
export function actorOfBearer(header: string): Actor {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new DomainError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (!isWellFormedApiKey(key)) throw new DomainError("invalid_key", "the API key is malformed");
  return { keyHash: hashApiKey(key) };
}
