import type { Database } from "../db/client.ts";
import type { ClientCredentials, ClientRow, IssuedTokens, RevokedGrant } from "../db/statements/oauth-client.ts";
import { revokeToken, tokenInstallation as tokenInstallationOf } from "../db/statements/oauth-revoke.ts";
import * as statements from "../db/statements/oauth-token.ts";
import type { AuditRequest } from "../domain/audit.ts";
import {
  CLIENT_ID_PATTERN,
  generateCredential,
  hashCredential,
  isCodeVerifier,
  isCredential,
  s256ChallengeOf,
} from "../domain/crypto/oauth.ts";
import { uuidv7 } from "../domain/ids.ts";
import {
  ACCESS_TOKEN_SECONDS,
  canonicalResource,
  GRANT_TYPES,
  type GrantType,
  isGrantType,
  OAuthError,
  parseScopeParameter,
  REFRESH_TOKEN_SECONDS,
  scopeParameter,
  serviceResource,
} from "../domain/oauth.ts";
import type { Scope } from "../domain/scopes.ts";
import type { Call, ServiceContext } from "./context.ts";
import { oauthRefusals } from "./refusals.ts";

// The token endpoint (POST /oauth/token) and revocation (POST /oauth/revoke), docs/apps.md. Each
// request is checked for shape here, without a lookup, then settled from its one statement's
// outcome into the answer or the RFC 6749 error. A refusal changes nothing, but for a reused code
// or refresh token, whose grant the statement revoked.

/** The client as the request authenticated it: its id, and its secret (Basic or the body), if any. */
export interface ClientAuthentication {
  clientId: string;
  secret: string | null;
}

export interface TokenRequest {
  client: ClientAuthentication;
  grantType: string;
  code?: string | undefined;
  redirectUri?: string | undefined;
  codeVerifier?: string | undefined;
  refreshToken?: string | undefined;
  scope?: string | undefined;
  resource?: string | undefined;
  organisationId?: string | undefined;
  /** The service's public origin: the resources a token may be for (RFC 8707). */
  origin: string;
}

/** RFC 6749 §5.1. */
export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

type TokenContext = Pick<ServiceContext, "db" | "rooms" | "defer"> & { request: AuditRequest };

/** After the answer: the room closes the sockets of a grant the statement revoked (4401). */
function tellRevoked(ctx: TokenContext, grant: RevokedGrant | null): void {
  if (grant) ctx.defer(() => ctx.rooms.tell(grant.orgId, { grantsRevoked: [grant.id] }));
}

/** New tokens: their values for the client, their ids and hashes to store; `narrowed`, what the access token holds when less than its grant. */
function mint(withRefresh: boolean, narrowed: Scope[] | null = null): { issued: IssuedTokens; access: string; refresh: string | null } {
  const access = generateCredential("accessToken");
  const refresh = withRefresh ? generateCredential("refreshToken") : null;
  return {
    access,
    refresh,
    issued: {
      access: { id: uuidv7(), hash: hashCredential(access), expiresInSeconds: ACCESS_TOKEN_SECONDS, scopes: narrowed },
      refresh: refresh ? { id: uuidv7(), hash: hashCredential(refresh), expiresInSeconds: REFRESH_TOKEN_SECONDS } : null,
    },
  };
}

const answer = (tokens: ReturnType<typeof mint>, scopes: readonly string[]): TokenAnswer => ({
  access_token: tokens.access,
  token_type: "Bearer",
  expires_in: ACCESS_TOKEN_SECONDS,
  ...(tokens.refresh ? { refresh_token: tokens.refresh } : {}),
  scope: scopeParameter(scopes),
});

const required = (value: string | undefined, name: string): string => {
  if (!value) throw new OAuthError("invalid_request", `${name} is required`);
  return value;
};

/** The client's id and the hash of its secret, when both are well-formed; invalid_client otherwise, before any lookup. */
export function clientCredentialsOf(client: ClientAuthentication): ClientCredentials {
  if (!CLIENT_ID_PATTERN.test(client.clientId)) throw new OAuthError("invalid_client", "unknown client");
  if (client.secret !== null && !isCredential("clientSecret", client.secret)) throw oauthRefusals.clientUnauthenticated();
  return { clientId: client.clientId, secretHash: client.secret === null ? null : hashCredential(client.secret) };
}

/**
 * The resource a token request names (RFC 8707), canonical, for comparing with its grant's; absent:
 * null. One that is no http(s) URL can match no grant: invalid_target, before any lookup.
 */
function presentedResource(resource: string | undefined): string | null {
  if (resource === undefined) return null;
  const canonical = canonicalResource(resource);
  if (canonical === null) throw oauthRefusals.foreignResource();
  return canonical;
}

/** The client authenticated, or invalid_client (RFC 6749 §5.2: 401). */
function settleClient(row: ClientRow): void {
  if (!row.clientFound || !row.clientAuthenticated) throw oauthRefusals.clientUnauthenticated();
}

export async function token({ ctx, input }: Call<TokenRequest, TokenContext>): Promise<TokenAnswer> {
  if (!isGrantType(input.grantType))
    throw new OAuthError("unsupported_grant_type", `grant_type must be ${GRANT_TYPES.slice(0, -1).join(", ")} or ${GRANT_TYPES.at(-1)}`);
  return GRANTS[input.grantType](ctx, input);
}

async function exchangeCode(ctx: TokenContext, input: TokenRequest): Promise<TokenAnswer> {
  const code = required(input.code, "code");
  const redirectUri = required(input.redirectUri, "redirect_uri");
  const verifier = required(input.codeVerifier, "code_verifier");
  const client = clientCredentialsOf(input.client);
  // A verifier of the wrong shape can match no challenge: the same refusal as a wrong one.
  const challenge = isCodeVerifier(verifier) ? s256ChallengeOf(verifier) : "-";
  const codeHash = isCredential("code", code) ? hashCredential(code) : "-";
  const tokens = mint(true);
  const outcome = await statements.exchangeCode(
    ctx.db,
    client,
    { codeHash, redirectUri, challenge, resource: presentedResource(input.resource) },
    tokens.issued,
    ctx.request,
  );
  tellRevoked(ctx, outcome.revokedGrant);
  settleClient(outcome);
  if (!outcome.codeFound) throw new OAuthError("invalid_grant", "the authorization code is unknown, or not this client's");
  if (outcome.codeReused) throw new OAuthError("invalid_grant", "the authorization code was used before: every token it gave is revoked");
  if (outcome.codeExpired) throw new OAuthError("invalid_grant", "the authorization code has expired");
  if (!outcome.redirectMatches) throw new OAuthError("invalid_grant", "redirect_uri is not the one the authorization request named");
  if (!outcome.verifierMatches) throw new OAuthError("invalid_grant", "code_verifier does not match the code_challenge");
  if (!outcome.resourceMatches) throw new OAuthError("invalid_target", "resource is not the one the authorization request named");
  if (!outcome.exchanged) throw oauthRefusals.grantEnded();
  return answer(tokens, outcome.scopes ?? []);
}

async function refresh(ctx: TokenContext, input: TokenRequest): Promise<TokenAnswer> {
  const presented = required(input.refreshToken, "refresh_token");
  const client = clientCredentialsOf(input.client);
  // RFC 6749 §6: a scope parameter asks for no more than the grant holds; the new access token
  // holds what it asks for, the new refresh token (and the grant) all the grant holds.
  const asked = parseScopeParameter(input.scope);
  if (asked.invalid) throw oauthRefusals.notAScope(asked.invalid);
  const scopes = asked.scopes.length > 0 ? asked.scopes : null;
  const tokens = mint(true, scopes);
  const tokenHash = isCredential("refreshToken", presented) ? hashCredential(presented) : "-";
  const outcome = await statements.rotateRefreshToken(
    ctx.db,
    client,
    { tokenHash, resource: presentedResource(input.resource), scopes },
    tokens.issued,
    ctx.request,
  );
  tellRevoked(ctx, outcome.revokedGrant);
  settleClient(outcome);
  if (!outcome.tokenFound) throw new OAuthError("invalid_grant", "the refresh token is unknown, or not this client's");
  if (outcome.tokenReused) throw new OAuthError("invalid_grant", "the refresh token was used before: its grant is revoked");
  if (outcome.tokenExpired) throw new OAuthError("invalid_grant", "the refresh token has expired or been revoked");
  if (!outcome.resourceMatches) throw new OAuthError("invalid_target", "resource is not the one the grant is for");
  if (!outcome.scopeWithin) throw new OAuthError("invalid_scope", "scope asks for more than the grant holds");
  if (!outcome.rotated) throw oauthRefusals.grantEnded();
  return answer(tokens, outcome.scopes ?? []);
}

async function clientCredentials(ctx: TokenContext, input: TokenRequest): Promise<TokenAnswer> {
  const client = clientCredentialsOf(input.client);
  const asked = parseScopeParameter(input.scope);
  if (asked.invalid) throw oauthRefusals.notAScope(asked.invalid);
  const orgId = input.organisationId ?? null;
  if (orgId !== null && !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(orgId))
    throw new OAuthError("invalid_request", "organisation_id must be a UUID");
  // RFC 8707: a token for one of the service's resources (the API, its MCP server), or for none named.
  const resource = input.resource === undefined ? null : serviceResource(input.resource, input.origin);
  if (input.resource !== undefined && resource === null) throw oauthRefusals.foreignResource(input.origin);
  const tokens = mint(false);
  const outcome = await statements.issueClientCredentials(
    ctx.db,
    client,
    { grantId: uuidv7(), orgId, scopes: asked.scopes.length > 0 ? asked.scopes : null, resource },
    tokens.issued,
    ctx.request,
  );
  settleClient(outcome);
  if (outcome.clientPublic) throw new OAuthError("unauthorized_client", "a public client cannot use client_credentials");
  if (outcome.installations === 0)
    throw new OAuthError("invalid_grant", "the application is not installed in that organisation (or in any, when none was named)");
  if (outcome.installations > 1)
    throw new OAuthError("invalid_request", "the application is installed in more than one organisation: name one as organisation_id");
  if (!outcome.issued) throw new OAuthError("invalid_scope", "scope asks for more than the installation allows");
  return answer(tokens, outcome.scopes ?? []);
}

/** Each grant type the service offers, and how it is settled: a type added to GRANT_TYPES fails to compile until handled here. */
const GRANTS = {
  authorization_code: exchangeCode,
  refresh_token: refresh,
  client_credentials: clientCredentials,
} satisfies Record<GrantType, (ctx: TokenContext, input: TokenRequest) => Promise<TokenAnswer>>;

/** RFC 7009: revokes the client's token; any other token changes nothing and is answered the same. */
export async function revoke({ ctx, input }: Call<{ client: ClientAuthentication; token: string }, TokenContext>): Promise<void> {
  const client = clientCredentialsOf(input.client);
  const outcome = await revokeToken(ctx.db, client, hashCredential(input.token), ctx.request);
  tellRevoked(ctx, outcome.revokedGrant);
  settleClient(outcome);
}

/** The installation an access token is of, and its rate limit; null when the token is not live (the rate limiter reads it). */
export const tokenInstallation = ({ ctx, input }: Call<{ accessTokenHash: string }, { db: Database }>) =>
  tokenInstallationOf(ctx.db, input.accessTokenHash);
