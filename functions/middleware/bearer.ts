import type { AppActor, KeyActor } from "../../domain/actor.ts";
import { hashApiKey, isWellFormedApiKey } from "../../domain/crypto/api-keys.ts";
import { CREDENTIAL_PREFIXES, hashCredential, isCredential } from "../../domain/crypto/oauth.ts";
import { DomainError } from "../../domain/errors.ts";

/** The resource (RFC 8707) an access token must be for on this request, and whether one bound to none is taken. */
export interface Audience {
  resource: string;
  unboundAccepted: boolean;
}

/**
 * How a request reached the app: from a client over HTTP (the API's audience at the service's
 * public origin, a token bound to none taken too), or as one of the MCP server's in-process calls
 * (functions/mcp/dispatch.ts: for the MCP server's audience, and its actor carries the MCP request).
 */
export type Transport = { kind: "http" } | { kind: "mcp"; audience: Audience };

/**
 * The key under which the request's ExecutionContext props carry its transport. A symbol: no
 * client, header or service binding's props (structured-cloned) can set it; only the MCP server,
 * which makes the context of its inner requests (mcpCallContext).
 */
const TRANSPORT = Symbol("transport");

/** The ExecutionContext of an MCP server's inner request: the outer request's, carrying its transport. */
export function mcpCallContext(outer: ExecutionContext, audience: Audience): ExecutionContext {
  const transport: Transport = { kind: "mcp", audience };
  return {
    waitUntil: (promise) => outer.waitUntil(promise),
    passThroughOnException: () => outer.passThroughOnException(),
    props: { [TRANSPORT]: transport },
  };
}

/** The transport of the request whose ExecutionContext is `executionCtx` (none: the app called without one, in Node tests). */
export function transportOf(executionCtx: ExecutionContext | undefined): Transport {
  const props = executionCtx?.props as { [TRANSPORT]?: Transport } | undefined;
  return props?.[TRANSPORT] ?? { kind: "http" };
}

/** The audience of a request: the API at the service's public origin unless its transport says otherwise. */
export const audienceOf = (transport: Transport, origin: string): Audience =>
  transport.kind === "mcp" ? transport.audience : { resource: origin, unboundAccepted: true };

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
 * token (docs/apps.md) against oauth_tokens, for the request's `audience` (audienceOf).
 */
export function actorOfBearer(header: string, audience: Audience): KeyActor | AppActor {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new DomainError("unauthorized", "the Authorization header must be: Bearer <key>");
  const key = match[1]!;
  if (key.startsWith(CREDENTIAL_PREFIXES.accessToken)) {
    const accessTokenHash =
      hashes.get(key) ?? remembered(key, isCredential("accessToken", key) && hashCredential(key), "the access token is malformed");
    const { resource, unboundAccepted } = audience;
    return { accessTokenHash, resource, unboundAccepted };
  }
  return { keyHash: hashes.get(key) ?? remembered(key, isWellFormedApiKey(key) && hashApiKey(key), "the API key is malformed") };
}
