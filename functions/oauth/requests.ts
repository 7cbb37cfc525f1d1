import type { Context } from "hono";
import { clientOf as addressKey } from "../../domain/client-address.ts";
import { FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS, OAuthError } from "../../domain/oauth.ts";
import type { ClientAuthentication } from "../../services/oauth-tokens.ts";
import { oauthRefusals } from "../../services/refusals.ts";
import type { AppEnv } from "../env.ts";
import { clientAddress } from "../middleware/rate-limit.ts";

// How the token and revocation endpoints read a request (RFC 6749 §2.3.1, §3.2) and answer a
// refusal (§5.2): a form body, the client's credentials by HTTP Basic or in the body (never both),
// and `{ error, error_description }` with no-store.

const MAX_FORM_BYTES = 16_384;

/** The form body: application/x-www-form-urlencoded, at most 16 KB, no parameter twice. */
export async function formOf(c: Context<AppEnv>): Promise<Map<string, string>> {
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(c.req.header("content-type") ?? ""))
    throw new OAuthError("invalid_request", "send the body as application/x-www-form-urlencoded");
  const text = await c.req.text();
  if (text.length > MAX_FORM_BYTES) throw new OAuthError("invalid_request", `the body is over ${MAX_FORM_BYTES} bytes`);
  const form = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(text)) {
    if (form.has(name)) throw new OAuthError("invalid_request", `${name.slice(0, 50)} is sent more than once`);
    form.set(name, value);
  }
  return form;
}

/** The Basic credentials' two parts, each form-urlencoded (RFC 6749 §2.3.1); null without Basic. */
function basicOf(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (!match) {
    if (header && /^Basic\b/i.test(header)) throw oauthRefusals.basicMalformed();
    return null;
  }
  let decoded: string;
  try {
    decoded = atob(match[1]!);
  } catch {
    throw oauthRefusals.basicMalformed();
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) throw oauthRefusals.basicMalformed();
  const part = (text: string) => decodeURIComponent(text.replace(/\+/g, " "));
  try {
    return { id: part(decoded.slice(0, colon)), secret: part(decoded.slice(colon + 1)) };
  } catch {
    throw oauthRefusals.basicMalformed();
  }
}

/** The client, as it authenticated: HTTP Basic, or client_id (and client_secret) in the body; one way only. */
export function clientOf(c: Context<AppEnv>, form: Map<string, string>): ClientAuthentication {
  const basic = basicOf(c.req.header("authorization"));
  const bodyId = form.get("client_id");
  const bodySecret = form.get("client_secret");
  if (basic) {
    if (bodySecret !== undefined) throw new OAuthError("invalid_request", "send the client's credentials one way: Basic or the body");
    if (bodyId !== undefined && bodyId !== basic.id)
      throw new OAuthError("invalid_request", "client_id differs from the Basic credentials'");
    return { clientId: basic.id, secret: basic.secret };
  }
  if (!bodyId) throw new OAuthError("invalid_client", "authenticate the client (Basic, or client_id and client_secret in the body)");
  return { clientId: bodyId, secret: bodySecret ?? null };
}

/**
 * A refusal as RFC 6749 §5.2 answers it: 401 for invalid_client (with a Basic challenge), 429 with
 * Retry-After for an address over a limit, else 400.
 */
export function oauthErrorResponse(c: Context<AppEnv>, error: unknown): Response {
  if (!(error instanceof OAuthError)) throw error;
  const headers: Record<string, string> = { "Cache-Control": "no-store", Pragma: "no-cache" };
  const status = error.error === "invalid_client" ? 401 : error.error === "too_many_requests" ? 429 : 400;
  if (status === 401) headers["WWW-Authenticate"] = 'Basic realm="opsroom"';
  if (status === 429) headers["Retry-After"] = String(error.retryAfter ?? 60);
  return c.json({ error: error.error, error_description: error.description }, status, headers);
}

/** The AuthGuard (functions/rate-limit/auth-guard.ts) counting `what` for the request's client address (an IPv6 one by its /64). */
export function addressGuardOf(c: Context<AppEnv>, what: string) {
  return c.env.AUTH_GUARD.get(c.env.AUTH_GUARD.idFromName(`${what}:address:${addressKey(clientAddress(c))}`));
}

/**
 * The token and revocation endpoints' answer, under the address's count of failed client
 * authentications: past FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS in the window, 429 before the
 * request is read (no secret hashed, nothing looked up); every invalid_client counts one.
 */
export async function withClientGuard(c: Context<AppEnv>, answer: () => Promise<Response>): Promise<Response> {
  const guard = addressGuardOf(c, "oauth-client");
  try {
    const decision = await guard.check(FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS);
    if (decision.blocked) throw oauthRefusals.tooManyFrom("failed client authentications", decision.retryAfter);
    return await answer();
  } catch (error) {
    if (error instanceof OAuthError && error.error === "invalid_client") await guard.fail(FAILED_CLIENT_AUTHENTICATIONS_PER_ADDRESS);
    return oauthErrorResponse(c, error);
  }
}
