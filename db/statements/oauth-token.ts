import type { AuditRequest } from "../../domain/audit.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { installations, memberships, oauthGrants, oauthTokens } from "../schema/index.ts";
import { tokenGrantAudit } from "./application-audit.ts";
import { installerHolds, installerJoin } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { runOne } from "./engine/sql.ts";
import {
  clientColumns,
  clientCte,
  flagsOf,
  grantOrg,
  grantScopes,
  issueCte,
  revokedGrantColumn,
  type ClientCredentials,
  type ClientRow,
  type IssuedTokens,
  type RevokedGrant,
} from "./oauth-client.ts";

// The token endpoint's statements (POST /oauth/token, /oauth/revoke; docs/apps.md): each is one
// statement that authenticates the client, checks the grant it presents and issues, rotates or
// revokes, or changes nothing. Credentials arrive as their SHA-256 only (minted by the service).
// A reused authorization code or refresh token revokes its whole grant, in the statement that
// found the reuse: that is the one write a refusal makes, on purpose (RFC 9700 §4.14, OAuth 2.1 §4.1.3),
// with its audit entry (application.code_reused, application.refresh_reused) in that statement too.
// A success appends application.token_issued. Revocation is oauth-revoke.ts.

export type { ClientCredentials, ClientRow, IssuedTokens, RevokedGrant };

export interface CodeExchange {
  codeHash: string;
  redirectUri: string;
  /** BASE64URL(SHA-256(code_verifier)): compared with the stored challenge. */
  challenge: string;
  /** The resource the token request names (RFC 8707), or null. */
  resource: string | null;
}

export type CodeOutcome = ClientRow & {
  /** The code exists and is this client's. */
  codeFound: boolean;
  /** It had been exchanged before: its grant is revoked now. */
  codeReused: boolean;
  codeExpired: boolean;
  redirectMatches: boolean;
  verifierMatches: boolean;
  resourceMatches: boolean;
  /** The grant and its installation are live (not revoked, not uninstalled, its installer's authority whole: caller.ts). */
  grantLive: boolean;
  scopes: Scope[] | null;
  /** The tokens were issued. */
  exchanged: boolean;
  revokedGrant: RevokedGrant | null;
};

/** grant_type=authorization_code: the code exchanged once for an access and a refresh token. */
export async function exchangeCode(
  db: Database,
  client: ClientCredentials,
  exchange: CodeExchange,
  tokens: IssuedTokens,
  request: AuditRequest,
) {
  return runOne<CodeOutcome>(
    db,
    sql`with ${clientCte(client)},
      code as (
        select g.*, g.code_expires_at <= now() as expired, g.redirect_uri = ${exchange.redirectUri} as redirect_matches,
               g.code_challenge = ${exchange.challenge} as verifier_matches,
               (${exchange.resource}::text is null or g.resource = ${exchange.resource}::text) as resource_matches,
               (g.revoked_at is null and i.uninstalled_at is null and ${installerHolds}) as live
          from ${oauthGrants} g join ${installations} i on i.id = g.installation_id ${installerJoin}
         where g.code_hash = ${exchange.codeHash} and i.application_id = (select id from client where authenticated)
      ),
      reuse as (
        update ${oauthGrants} set revoked_at = now()
         where id = (select id from code where code_used_at is not null) and revoked_at is null
        returning id, installation_id, user_id, ${grantOrg}
      ),
      used as (
        update ${oauthGrants} set code_used_at = now()
         where id = (select id from code where code_used_at is null and not expired and redirect_matches and verifier_matches
                                           and resource_matches and live)
           and code_used_at is null
        returning *
      ),
      ${issueCte(sql`used`, tokens)},
      ${tokenGrantAudit(request, { grantType: "authorization_code", issuedOf: "used", scopes: grantScopes("g") }, "application.code_reused")}
    select ${clientColumns}, exists (select 1 from code) as "codeFound",
           ${flagsOf("code", {
             codeReused: "code_used_at is not null",
             codeExpired: "expired",
             redirectMatches: "redirect_matches",
             verifierMatches: "verifier_matches",
             resourceMatches: "resource_matches",
             grantLive: "live",
           })},
           (select ${grantScopes("used")} from used) as scopes,
           exists (select 1 from issued) as exchanged, ${revokedGrantColumn("reuse")}`,
  );
}

export type RefreshOutcome = ClientRow & {
  tokenFound: boolean;
  /** Used before: its grant is revoked now. */
  tokenReused: boolean;
  tokenExpired: boolean;
  resourceMatches: boolean;
  /** The scope parameter, if any, asks for no more than the grant holds. */
  scopeWithin: boolean;
  grantLive: boolean;
  scopes: Scope[] | null;
  rotated: boolean;
  revokedGrant: RevokedGrant | null;
};

/** grant_type=refresh_token: the refresh token used once, for a new access token and a new refresh token. */
export async function rotateRefreshToken(
  db: Database,
  client: ClientCredentials,
  presented: { tokenHash: string; resource: string | null; scopes: Scope[] | null },
  tokens: IssuedTokens,
  request: AuditRequest,
) {
  const asked = presented.scopes ? sql`${sql.param(presented.scopes)}::text[]` : sql`null::text[]`;
  // The access token holds what was asked, when less than the grant (RFC 6749 §6); the refresh token keeps the grant's.
  const narrowed = tokens.access.scopes ? sql`${sql.param(tokens.access.scopes)}::text[]` : sql`null::text[]`;
  return runOne<RefreshOutcome>(
    db,
    sql`with ${clientCte(client)},
      presented as (
        select t.id, t.grant_id, t.used_at, t.revoked_at, t.expires_at <= now() as expired,
               (${presented.resource}::text is null or g.resource = ${presented.resource}::text) as resource_matches,
               (${asked} is null or ${asked} <@ g.scopes) as scope_within,
               (g.revoked_at is null and i.uninstalled_at is null and ${installerHolds} and (g.user_id is null or exists (
                  select 1 from ${memberships} m where m.user_id = g.user_id and m.org_id = i.org_id))) as live
          from ${oauthTokens} t join ${oauthGrants} g on g.id = t.grant_id join ${installations} i on i.id = g.installation_id ${installerJoin}
         where t.token_hash = ${presented.tokenHash} and t.kind = 'refresh' and i.application_id = (select id from client where authenticated)
      ),
      reuse as (
        update ${oauthGrants} set revoked_at = now()
         where id = (select grant_id from presented where used_at is not null) and revoked_at is null
        returning id, installation_id, user_id, ${grantOrg}
      ),
      spent as (
        update ${oauthTokens} set used_at = now()
         where id = (select id from presented where used_at is null and revoked_at is null and not expired and resource_matches
                                                    and scope_within and live)
           and used_at is null
        returning grant_id
      ),
      rotated as (select g.* from ${oauthGrants} g where g.id = (select grant_id from spent)),
      ${issueCte(sql`rotated`, tokens)},
      ${tokenGrantAudit(request, { grantType: "refresh_token", issuedOf: "rotated", scopes: grantScopes("g", narrowed) }, "application.refresh_reused")}
    select ${clientColumns}, exists (select 1 from presented) as "tokenFound",
           ${flagsOf("presented", {
             tokenReused: "used_at is not null",
             tokenExpired: "expired or revoked_at is not null",
             resourceMatches: "resource_matches",
             scopeWithin: "scope_within",
             grantLive: "live",
           })},
           (select ${grantScopes("rotated", narrowed)} from rotated) as scopes,
           exists (select 1 from issued) as rotated, ${revokedGrantColumn("reuse")}`,
  );
}

export type ClientCredentialsOutcome = ClientRow & {
  /** Live installations of the application (in the organisation asked for, when one was). */
  installations: number;
  scopes: Scope[] | null;
  issued: boolean;
};

/**
 * grant_type=client_credentials: a confidential application acting as itself in the organisation
 * that installed it (the one named, when it is installed in more than one): a grant of its own
 * holding the scopes asked for (all the installation's when none were), and an access token.
 */
export async function issueClientCredentials(
  db: Database,
  client: ClientCredentials,
  request: { grantId: string; orgId: string | null; scopes: Scope[] | null; resource: string | null },
  tokens: IssuedTokens,
  audit: AuditRequest,
) {
  const wanted = request.scopes ? sql`${sql.param(request.scopes)}::text[]` : sql`i.scopes`;
  return runOne<ClientCredentialsOutcome>(
    db,
    sql`with ${clientCte(client)},
      installed as (
        select i.* from ${installations} i ${installerJoin}
         where i.application_id = (select id from client where authenticated and not public) and i.uninstalled_at is null and ${installerHolds}
           and (${request.orgId}::uuid is null or i.org_id = ${request.orgId}::uuid)
      ),
      granted as (
        insert into ${oauthGrants} (id, installation_id, user_id, scopes, resource)
        select ${request.grantId}::uuid, i.id, null, array(select unnest(${wanted}) intersect select unnest(i.scopes)), ${request.resource}::text
          from installed i
         where (select count(*) from installed) = 1 and ${wanted} <@ i.scopes
        returning *
      ),
      ${issueCte(sql`granted`, tokens)},
      ${tokenGrantAudit(audit, { grantType: "client_credentials", issuedOf: "granted", scopes: grantScopes("g") })}
    select ${clientColumns}, (select count(*)::int from installed) as installations,
           (select ${grantScopes("granted")} from granted) as scopes, exists (select 1 from issued) as issued`,
  );
}
