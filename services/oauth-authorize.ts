import type { Database } from "../db/client.ts";
import * as statements from "../db/statements/oauth-authorize.ts";
import type { Client } from "../db/statements/oauth-authorize.ts";
import type { AuditRequest } from "../domain/audit.ts";
import { CLIENT_ID_PATTERN, generateCredential, hashCredential, S256_CHALLENGE } from "../domain/crypto/oauth.ts";
import { DomainError } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { matchesRedirectUri, OAuthError, parseScopeParameter, serviceResource, type AuthorizationParameter } from "../domain/oauth.ts";
import { ROLE_SCOPES } from "../domain/roles.ts";
import { SCOPES, type Scope } from "../domain/scopes.ts";
import type { Call } from "./context.ts";
import { oauthRefusals } from "./refusals.ts";

// The authorization endpoint (GET /oauth/authorize) and the consent page's two calls (GET and POST
// /oauth/consent), docs/apps.md. A request naming an unknown client or a redirect URI the client did
// not register is never redirected (no open redirect): the person is shown the error. Any other
// refusal goes back to the client's redirect URI, with `state` and `iss` (RFC 9207).

/** The query of an authorization request, as sent. */
export type AuthorizationQuery = { [name in AuthorizationParameter]?: string | undefined };

/** An authorization request that passed every check. */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  scopes: Scope[];
  state: string | null;
  challenge: string;
  resource: string | null;
}

/** The request is refused: shown to the person (`redirectTo` null), or sent back to the client. */
export class AuthorizationRefused extends Error {
  constructor(
    readonly error: OAuthError,
    readonly redirectTo: string | null,
  ) {
    super(error.description);
  }
}

/** `uri` with the parameters added to its query (kept as it was registered, RFC 6749 §3.1.2). */
export function redirectWith(uri: string, params: Record<string, string | null>): string {
  const query = new URLSearchParams(Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== null));
  return `${uri}${uri.includes("?") ? "&" : "?"}${query}`;
}

/** Checks an authorization request (RFC 6749 §4.1.1, PKCE S256 only, RFC 8707); throws AuthorizationRefused. */
export async function checkAuthorization({
  ctx,
  input,
}: Call<{ query: AuthorizationQuery; issuer: string }, { db: Database }>): Promise<AuthorizationRequest> {
  const { query, issuer } = input;
  const shown = (description: string) => new AuthorizationRefused(new OAuthError("invalid_request", description), null);
  const clientId = query.client_id ?? "";
  const client = CLIENT_ID_PATTERN.test(clientId) ? await statements.findClient(ctx.db, clientId) : null;
  if (!client) throw shown("client_id names no application");
  if (!query.redirect_uri || !matchesRedirectUri(client.redirectUris, query.redirect_uri))
    throw shown("redirect_uri is not one the application registered");
  const redirectUri = query.redirect_uri;
  const state = query.state ?? null;
  const back = (error: OAuthError) =>
    new AuthorizationRefused(
      error,
      redirectWith(redirectUri, { error: error.error, error_description: error.description, state, iss: issuer }),
    );
  if (query.response_type !== "code") throw back(new OAuthError("unsupported_response_type", "response_type must be code"));
  if (query.code_challenge_method !== "S256" || !query.code_challenge)
    throw back(new OAuthError("invalid_request", "PKCE is required: code_challenge with code_challenge_method=S256 (plain is refused)"));
  if (!S256_CHALLENGE.test(query.code_challenge))
    throw back(new OAuthError("invalid_request", "code_challenge must be an S256 challenge: 43 base64url characters"));
  const asked = parseScopeParameter(query.scope ?? client.scopes.join(" "));
  if (asked.invalid) throw back(oauthRefusals.notAScope(asked.invalid));
  if (asked.scopes.length === 0 || asked.scopes.some((scope) => !client.scopes.includes(scope)))
    throw back(new OAuthError("invalid_scope", "scope asks for more than the application may"));
  const resource = query.resource === undefined ? null : serviceResource(query.resource, issuer);
  if (query.resource !== undefined && resource === null) throw back(oauthRefusals.foreignResource(issuer));
  return { client, redirectUri, scopes: asked.scopes, state, challenge: query.code_challenge, resource };
}

export interface ConsentView {
  application: { name: string; clientId: string; redirectHost: string; dynamic: boolean };
  scopes: { scope: Scope; label: string }[];
  organisations: { id: string; name: string; role: string; grantable: Scope[]; allowed: boolean; reason?: string }[];
}

const signInFirst = () => new DomainError("unauthorized", "sign in first: consent needs a signed-in person");

/** What the consent page shows: the application, what it asks for, and where the person may allow it. */
export async function consentView({
  ctx,
  input,
}: Call<{ request: AuthorizationRequest; sessionToken: string | null }, { db: Database }>): Promise<ConsentView> {
  const { request } = input;
  const organisations = input.sessionToken ? await statements.consentOrganisations(ctx.db, input.sessionToken) : [];
  if (organisations.length === 0) throw signInFirst();
  const dynamic = request.client.orgId === null;
  return {
    application: { name: request.client.name, clientId: request.client.clientId, redirectHost: new URL(request.redirectUri).host, dynamic },
    scopes: request.scopes.map((scope) => ({ scope, label: SCOPES[scope] })),
    organisations: organisations.map((org) => {
      const grantable = request.scopes.filter((scope) => ROLE_SCOPES[org.role].includes(scope));
      const reason =
        dynamic && !org.allowsDynamic
          ? "an owner has not allowed dynamically registered applications in this organisation"
          : grantable.length === 0
            ? "your role holds none of the scopes asked for"
            : undefined;
      return { id: org.id, name: org.name, role: org.role, grantable, allowed: reason === undefined, ...(reason ? { reason } : {}) };
    }),
  };
}

/**
 * The person's decision: allow (the application installed in the organisation chosen, or its
 * installation widened, and a code) or deny. Answers where the page sends the browser.
 */
export async function decide({
  ctx,
  input,
}: Call<
  { request: AuthorizationRequest; sessionToken: string | null; orgId: string; allow: boolean; issuer: string },
  { db: Database; request: AuditRequest }
>): Promise<{ redirectTo: string }> {
  const { request, issuer } = input;
  if (!input.sessionToken) throw signInFirst();
  const state = request.state;
  if (!input.allow)
    return {
      redirectTo: redirectWith(request.redirectUri, {
        error: "access_denied",
        error_description: "the person declined",
        state,
        iss: issuer,
      }),
    };
  const code = generateCredential("code");
  const outcome = await statements.consent(
    ctx.db,
    input.sessionToken,
    {
      applicationId: request.client.id,
      orgId: input.orgId,
      scopes: request.scopes,
      resource: request.resource,
      codeHash: hashCredential(code),
      challenge: request.challenge,
      redirectUri: request.redirectUri,
      installationId: uuidv7(),
      grantId: uuidv7(),
    },
    ctx.request,
  );
  if (!outcome.member) throw new DomainError("not_found", "you are not a member of that organisation, or your session has ended");
  if (!outcome.installable)
    throw new DomainError("insufficient_role", "an owner of that organisation has not allowed dynamically registered applications");
  if (!outcome.granted) throw new DomainError("insufficient_role", "your role in that organisation holds none of the scopes asked for");
  return { redirectTo: redirectWith(request.redirectUri, { code, state, iss: issuer }) };
}
