import { hashApiKey, isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import { CREDENTIAL_PREFIXES, hashCredential, isCredential } from "../../domain/crypto/oauth.ts";
import type { AppActor, KeyActor } from "../../domain/actor.ts";
import { DomainError } from "../../domain/errors.ts";

/** The resource (RFC 8707) an access token must be for on this request, and whether one bound to none is taken. */
export interface Audience {
  resource: string;
  unboundAccepted: boolean;
  /** The request is one of the MCP server's calls: its actor carries the MCP request (the MCP session's audit entry). */
  mcp?: boolean;
}

/** Requests made for another resource than the API (the MCP server's inner calls, functions/mcp/dispatch.ts). */
const audiences = new WeakMap<Request, Audience>();

/** Marks an in-process request as made for `audience`: a client cannot set it (it is no header). */
export function withAudience(request: Request, audience: Audience): Request {
  audiences.set(request, audience);
  return request;
}

/**
 * The audience of a request: the API at the service's public origin (a token bound to none taken
 * too), whatever Host the request was sent to, unless it was marked otherwise.
 */
const audienceOf = (request: Request, origin: string): Audience => audiences.get(request) ?? { resource: origin, unboundAccepted: true };

/** The request is one of the MCP server's calls (functions/mcp/dispatch.ts). */
export const isMcpCall = (request: Request): boolean => audiences.get(request)?.mcp === true;

/**
 * The hash of each well-formed key and access token this isolate has read, by the credential
 * itself: a key's SHA-256 through workerd's node:crypto (a stream object, two Buffers) was 5-8 %
 * of a call's CPU in the Worker's profile (bench/results/README.md "CPU per call"), and an isolate serves
 * the same few keys call after call. Only the exact credential finds its hash; a malformed one is
 * never kept. Past HASHES_KEPT it starts again.
 */
const hashes = new Map<string, string>();
const HASHES_KEPT = 10_000;

/** A well-formed credential's hash, kept; `hash` false (malformed) is refused as invalid_key. */
function remembered(credential: string, hash: string | false, malformed: string): string {
  if (hash === false) throw new DomainError("invalid_key", malformed);
  if (hashes.size >= HASHES_KEPT) hashes.clear();
  hashes.set(credential, hash);
  return hash;
}

/**
 * Reads `Authorization: Bearer <key or access token>`. A malformed header, key or token is refused
 * here without a database round trip; a well-formed one becomes the actor (its hash) that the
 * route's single statement checks: an API key against api_keys, an OAuth application's access
 * token (docs/apps.md) against oauth_tokens, for the request's audience (`origin`: the service's
 * public origin, PUBLIC_ORIGIN).
 */
export function actorOfBearer(header: string, request: Request, origin: string): KeyActor | AppActor {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new DomainError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (key.startsWith(CREDENTIAL_PREFIXES.accessToken)) {
    const accessTokenHash =
      hashes.get(key) ?? remembered(key, isCredential("accessToken", key) && hashCredential(key), "the access token is malformed");
    const { resource, unboundAccepted } = audienceOf(request, origin);
    return { accessTokenHash, resource, unboundAccepted };
  }
  return { keyHash: hashes.get(key) ?? remembered(key, isWellFormedApiKey(key) && hashApiKey(key), "the API key is malformed") };
}
