import { Hono, type Context } from "hono";
import { DomainError } from "../../domain/errors.ts";
import { AUTHORIZATION_PARAMETERS, OAuthError } from "../../domain/oauth.ts";
import { AuthorizationRefused, checkAuthorization, consentView, decide, type AuthorizationQuery } from "../../services/oauth-authorize.ts";
import { revoke, token } from "../../services/oauth-tokens.ts";
import { callerRefusals } from "../../services/refusals.ts";
import { isSameOriginWrite, sessionTokenOf } from "../auth/session-cookie.ts";
import { pathOf } from "../entry-points.ts";
import { settingsOf, type AppEnv } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { authorizationServerMetadata, protectedResourceMetadata } from "./metadata.ts";
import { registerClient } from "./register.ts";
import { clientOf, formOf, withClientGuard } from "./requests.ts";

// The OAuth 2.1 authorization server (docs/apps.md): discovery, the authorization endpoint (which
// sends the person to the console's consent page), the consent page's two calls, the token
// endpoint, revocation and dynamic registration. Outside the /v1 registry: these speak OAuth's
// own protocol (form bodies, RFC 6749 error bodies), not the API's envelope.

export const oauthRoutes = new Hono<AppEnv>();

/** The issuer: the configured public origin (PUBLIC_ORIGIN), whatever Host the request was sent to. */
const issuerOf = (c: Context<AppEnv>) => settingsOf(c.env).publicOrigin;

/** No credential or code is cached, and no page of this flow tells where it came from (Referer). */
oauthRoutes.use("/oauth/*", async (c, next) => {
  await next();
  c.res.headers.set("Cache-Control", "no-store");
  c.res.headers.set("Pragma", "no-cache");
  c.res.headers.set("Referrer-Policy", "no-referrer");
});

oauthRoutes.get(pathOf("authorizationServerMetadata"), (c) => c.json(authorizationServerMetadata(issuerOf(c))));
oauthRoutes.get(pathOf("protectedResourceMetadata"), (c) => c.json(protectedResourceMetadata(issuerOf(c))));
oauthRoutes.get(pathOf("mcpResourceMetadata"), (c) => c.json(protectedResourceMetadata(issuerOf(c), `${issuerOf(c)}${pathOf("mcp")}`)));

/** The authorization request's parameters; one sent twice is refused (RFC 6749 §3.1), shown to the person. */
function authorizationQueryOf(source: (name: string) => string[]): AuthorizationQuery {
  const query: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const values = source(name);
    if (values.length > 1) throw new AuthorizationRefused(new OAuthError("invalid_request", `${name} is sent more than once`), null);
    if (values[0] !== undefined) query[name] = values[0];
  }
  return query;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);

/** A refused authorization request that cannot go back to the client: a page for the person, never a redirect. */
function refusalPage(c: Context<AppEnv>, refused: AuthorizationRefused) {
  return c.html(
    `<!doctype html><meta charset="utf-8"><title>Authorization refused</title>` +
      `<h1>This application's request cannot be completed</h1><p>${escapeHtml(refused.error.description)}</p>` +
      `<p>Return to the application and try again, or tell its maker.</p>`,
    400,
  );
}

oauthRoutes.get(pathOf("authorize"), async (c) => {
  try {
    const query = authorizationQueryOf((name) => c.req.queries(name) ?? []);
    await checkAuthorization({ ctx: { db: c.get("db") }, input: { query, issuer: issuerOf(c) } });
    // The console's consent page reads the same query (GET /oauth/consent) and asks the person.
    return c.redirect(`/consent.html${new URL(c.req.url).search}`, 302);
  } catch (error) {
    if (!(error instanceof AuthorizationRefused)) throw error;
    return error.redirectTo ? c.redirect(error.redirectTo, 302) : refusalPage(c, error);
  }
});

/** The request the consent page carries, checked again as the authorization endpoint checked it; 400 with where to send the person otherwise. */
async function consentRequest(c: Context<AppEnv>, source: (name: string) => string[]) {
  try {
    const query = authorizationQueryOf(source);
    return await checkAuthorization({ ctx: { db: c.get("db") }, input: { query, issuer: issuerOf(c) } });
  } catch (error) {
    if (!(error instanceof AuthorizationRefused)) throw error;
    throw new DomainError("invalid_field", error.error.description, { oauthError: error.error.error, redirectTo: error.redirectTo });
  }
}

const sessionOf = async (c: Context<AppEnv>) => {
  const auth = settingsOf(c.env).auth;
  return auth ? sessionTokenOf(c, auth.secret) : null;
};

oauthRoutes.get(pathOf("consentView"), async (c) => {
  const request = await consentRequest(c, (name) => c.req.queries(name) ?? []);
  return c.json(await consentView({ ctx: { db: c.get("db") }, input: { request, sessionToken: await sessionOf(c) } }));
});

oauthRoutes.post(pathOf("consentDecision"), async (c) => {
  // CSRF: the decision is taken by the console's own page, never by a form elsewhere.
  if (!isSameOriginWrite(c)) throw callerRefusals.crossSite();
  const body = await jsonObjectOf(c);
  const field = (name: string) => (typeof body[name] === "string" ? [body[name]] : []);
  const request = await consentRequest(c, field);
  const orgId = typeof body.orgId === "string" && /^[0-9a-f-]{36}$/.test(body.orgId) ? body.orgId : null;
  if (!orgId) throw new DomainError("invalid_field", "orgId must be the id of one of your organisations", { field: "orgId" });
  if (body.decision !== "allow" && body.decision !== "deny")
    throw new DomainError("invalid_field", 'decision must be "allow" or "deny"', { field: "decision" });
  const input = { request, sessionToken: await sessionOf(c), orgId, allow: body.decision === "allow", issuer: issuerOf(c) };
  return c.json(await decide({ ctx: tokenContext(c), input }));
});

/** The consent's JSON body: an object of at most 16 KB. */
async function jsonObjectOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  if (!/^application\/json\s*(;|$)/i.test(c.req.header("content-type") ?? ""))
    throw new DomainError("unsupported_media_type", "send the body as application/json");
  const text = await c.req.text();
  if (text.length > 16_384) throw new DomainError("payload_too_large", "the body is over 16384 bytes");
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && !Array.isArray(body)) return body as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw new DomainError("invalid_json", "the body must be a JSON object");
}

/**
 * The consent's and the token endpoints' context: the database, the rooms told after the answer of
 * a grant revoked, and where the request came from (their audit entries).
 */
function tokenContext(c: Context<AppEnv>) {
  const { db, rooms, defer, request } = serviceContext(c);
  return { db, rooms, defer, request: request! };
}

oauthRoutes.post(pathOf("token"), (c) =>
  withClientGuard(c, async () => {
    const form = await formOf(c);
    const input = {
      client: clientOf(c, form),
      grantType: form.get("grant_type") ?? "",
      code: form.get("code") ?? undefined,
      redirectUri: form.get("redirect_uri") ?? undefined,
      codeVerifier: form.get("code_verifier") ?? undefined,
      refreshToken: form.get("refresh_token") ?? undefined,
      scope: form.get("scope") ?? undefined,
      resource: form.get("resource") ?? undefined,
      organisationId: form.get("organisation_id") ?? undefined,
      origin: issuerOf(c),
    };
    return c.json(await token({ ctx: tokenContext(c), input }));
  }),
);

oauthRoutes.post(pathOf("revoke"), (c) =>
  withClientGuard(c, async () => {
    const form = await formOf(c);
    const presented = form.get("token");
    if (!presented) throw new OAuthError("invalid_request", "token is required");
    await revoke({ ctx: tokenContext(c), input: { client: clientOf(c, form), token: presented } });
    return c.body(null, 200);
  }),
);

oauthRoutes.post(pathOf("register"), registerClient);
