import type { Context } from "hono";
import { getSignedCookie } from "hono/cookie";

// The session cookie better-auth sets (functions/auth/auth.ts, cookiePrefix "opsroom"): the
// session's token and its HMAC-SHA256 under AUTH_SECRET, "<token>.<signature>". Over https it
// carries the __Secure- prefix. Reading it costs no round trip; the token is then checked inside
// the call's own statement (db/statements/engine/caller.ts), as a key's hash is. The cookie is the only
// place the token travels to the browser: no answer body carries it (withoutSessionToken).

export const COOKIE_PREFIX = "opsroom";
export const SESSION_COOKIE = `${COOKIE_PREFIX}.session_token`;

/**
 * The session token of a correctly signed session cookie, or null (none, or a forged one). Only
 * the name better-auth sets for the request's scheme counts: over https the __Secure- one, which
 * no http page or sibling host can plant.
 */
export async function sessionTokenOf(c: Context, secret: string): Promise<string | null> {
  const name = new URL(c.req.url).protocol === "https:" ? `__Secure-${SESSION_COOKIE}` : SESSION_COOKIE;
  const token = await getSignedCookie(c, secret, name);
  return typeof token === "string" && token.length > 0 ? token : null;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * A write carried by a cookie must come from a page of this origin: the browser's Origin header
 * (or, without it, Sec-Fetch-Site) says so. A request naming neither is refused too: every browser
 * that sends cookies sends one of them on a POST, PATCH or DELETE.
 */
export function isSameOriginWrite(c: Context): boolean {
  if (SAFE_METHODS.has(c.req.method)) return true;
  const origin = c.req.header("origin");
  if (origin) return origin === new URL(c.req.url).origin;
  return c.req.header("sec-fetch-site") === "same-origin";
}

/**
 * better-auth answers the session's token in the JSON of sign-up and sign-in (`token`) and of the
 * session (`session.token`): the very credential the HttpOnly cookie keeps from the page's
 * scripts, which could read it there. It is taken out of every answer /auth serves, and the cookie
 * alone carries it. Here rather than in a better-auth `hooks.after`, which runs for the server's
 * own `auth.api` calls too and would have to tell them apart.
 */
export async function withoutSessionToken(response: Response): Promise<Response> {
  if (!response.ok || !response.headers.get("content-type")?.startsWith("application/json")) return response;
  const body = (await response.json()) as { token?: unknown; session?: { token?: unknown } | null } | null;
  if (body) {
    delete body.token;
    if (body.session) delete body.session.token;
  }
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, headers });
}
