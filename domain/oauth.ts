import { expandScopes, isScope, type Scope } from "./scopes.ts";

// OAuth 2.1 applications (docs/apps.md): how long each credential lives, how OAuth's scope
// parameter maps onto the API's scopes, and which redirect URIs an application may register and
// how a request's redirect_uri is matched against them.

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_SECONDS = 60;
/** How long a rotated-out client secret keeps working, unless the rotation says otherwise; and the most it may. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;
export const MAX_SECRET_OVERLAP_SECONDS = 604_800;
/** Redirect URIs one application may register. */
export const MAX_REDIRECT_URIS = 10;

/** Dynamic registrations (RFC 7591) one client address may make per REGISTRATION_WINDOW_SECONDS. */
export const REGISTRATIONS_PER_ADDRESS = 20;
export const REGISTRATION_WINDOW_SECONDS = 3600;

/**
 * Failed client authentications (invalid_client) one client address may make at the token and
 * revocation endpoints per window (domain/limits.ts WINDOW_SECONDS, a minute); past it the
 * address is answered 429 before anything of its requests is read or hashed. A client secret
 * has 256 bits, so the limit is not what stops guessing: it caps what failed requests cost.
 */
export const FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS = 20;

/** The authorization request's parameters (RFC 6749 §4.1.1, PKCE, RFC 8707), which the consent page sends back with the decision. */
export const AUTHORIZATION_PARAMETERS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;
export type AuthorizationParameter = (typeof AUTHORIZATION_PARAMETERS)[number];

/** The grant types the token endpoint serves. */
export const GRANT_TYPES = ["authorization_code", "refresh_token", "client_credentials"] as const;
export type GrantType = (typeof GRANT_TYPES)[number];
export const isGrantType = (value: string): value is GrantType => (GRANT_TYPES as readonly string[]).includes(value);

/**
 * OAuth's scope parameter (space-separated API scope names) as the scopes held, .manage bringing
 * its .read; `invalid` names the first word that is no scope. An empty or absent parameter is no scopes.
 */
export function parseScopeParameter(value: string | null | undefined): { scopes: Scope[]; invalid: string | null } {
  const words = (value ?? "").split(" ").filter(Boolean);
  const invalid = words.find((word) => !isScope(word)) ?? null;
  return { scopes: invalid ? [] : expandScopes(words as Scope[]), invalid };
}

/** Scopes as OAuth writes them: space-separated. */
export const scopeParameter = (scopes: readonly string[]) => scopes.join(" ");

/**
 * A resource indicator (RFC 8707) as it is compared and stored: parsed as a URL (scheme and host in
 * lower case, a default port dropped) with no trailing "/" on its path, so `https://api.example.com/`
 * is `https://api.example.com`. Null when it is no absolute http(s) URL, or has a fragment (RFC 8707 §2):
 * it can then name none of the service's resources.
 */
export function canonicalResource(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol) || url.hash || raw.includes("#")) return null;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}${url.search}`;
}

/** The resources a token may be for (RFC 8707), canonical: the API at the service's origin, and its MCP server. */
export const resourcesOf = (origin: string) => [origin, `${origin}/mcp`];

/** `raw` as one of the service's resources (canonical), or null when it names another (invalid_target). */
export function serviceResource(raw: string, origin: string): string | null {
  const resource = canonicalResource(raw);
  return resource !== null && resourcesOf(origin).includes(resource) ? resource : null;
}

/** The service's name, which no application's may carry: the consent page would show it as ours. */
const SERVICE_NAME = "opsroom";

/**
 * Why an application may not be called `name`, or null: it names the service ("opsroom ...",
 * "OpsRoom Sync", "ops-room", "0psroom"), compared in lower case with its letters alone (NFKC, 0 as o).
 */
export function applicationNameProblem(name: string): string | null {
  const letters = name
    .normalize("NFKC")
    .toLowerCase()
    .replace(/0/g, "o")
    .replace(/[^\p{L}]/gu, "");
  return letters.includes(SERVICE_NAME) ? `must not name the service (${SERVICE_NAME}): the consent page would show it as ours` : null;
}

/** The hosts that are this machine, as WHATWG URL writes them (RFC 8252 §7.3 and §8.3). */
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Why a redirect URI may not be registered, or null: an absolute https URL, or http to a loopback
 * host for tools on a person's machine (RFC 8252 §7.3; `localhost` too, which §8.3 does not
 * recommend but native tools register: docs/apps.md "Security"); no fragment (RFC 6749 §3.1.2), no
 * credentials, no port 0 (no server listens there), at most 2,000 characters. It is registered as
 * written, and matched exactly.
 */
export function redirectUriProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (raw.length > 2000) return "is longer than 2000 characters";
  if (url.hash || raw.includes("#")) return "must not have a fragment";
  if (url.username || url.password) return "must not carry credentials";
  if (url.port === "0") return "must not name port 0";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) return null;
  return "must use https, or http to a loopback address (127.0.0.1, [::1] or localhost)";
}

/**
 * Whether `given` is one of `registered`: exactly (the same characters), or, for an http loopback
 * URI only, the same but for the port, which a native app picks when it starts (RFC 8252 §7.3).
 */
export function matchesRedirectUri(registered: readonly string[], given: string): boolean {
  if (registered.includes(given)) return true;
  const port = loopbackPortless(given);
  return port !== null && registered.some((uri) => loopbackPortless(uri) === port);
}

/** An http loopback URI without its port (string compared), or null for any other URI. */
function loopbackPortless(raw: string): string | null {
  if (!raw.startsWith("http://")) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (!LOOPBACK_HOSTS.has(url.hostname) || url.port === "0" || url.username || url.password || url.hash || raw.includes("#")) return null;
  // Rebuilt from the parsed parts, so "http://127.0.0.1:8000/cb" and "http://127.0.0.1/cb" compare equal, and nothing else does.
  const rebuilt = `http://${url.host}${url.pathname}${url.search}`;
  if (rebuilt !== raw && `http://${url.hostname}${url.pathname}${url.search}` !== raw) return null;
  return `http://${url.hostname}${url.pathname}${url.search}`;
}

/**
 * The error codes of the OAuth endpoints (RFC 6749 §4.1.2.1 and §5.2, RFC 7009 §2.2.1, RFC 7591
 * §3.2.2): another protocol than the API's, answered `{ error, error_description }`.
 */
export const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "unsupported_token_type",
  "invalid_scope",
  "invalid_target",
  "access_denied",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  // Not RFC 6749's: an address over a limit (answered 429 with Retry-After).
  "too_many_requests",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERRORS)[number];

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    /** Seconds to wait, for too_many_requests. */
    readonly retryAfter?: number,
  ) {
    super(description);
    this.name = "OAuthError";
  }
}
