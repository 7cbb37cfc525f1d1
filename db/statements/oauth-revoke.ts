import type { AuditRequest } from "../../domain/audit.ts";
import type { Database } from "../client.ts";
import { installations, oauthGrants, oauthTokens } from "../schema/index.ts";
import { tokenRevokedAudit } from "./application-audit.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";
import {
  clientColumns,
  clientCte,
  grantOrg,
  revokedGrantColumn,
  type ClientCredentials,
  type ClientRow,
  type RevokedGrant,
} from "./oauth-client.ts";

// Revocation (POST /oauth/revoke, RFC 7009; docs/apps.md) and the rate limiter's look-up of an
// access token's installation.

/**
 * RFC 7009: the token revoked, if it is this client's: an access token alone; a refresh token with
 * its whole grant. Unknown tokens change nothing.
 */
export async function revokeToken(db: Database, client: ClientCredentials, tokenHash: string, request: AuditRequest) {
  return runOne<ClientRow & { revoked: boolean; revokedGrant: RevokedGrant | null }>(
    db,
    sql`with ${clientCte(client)},
      presented as (
        select t.id, t.kind, t.grant_id from ${oauthTokens} t join ${oauthGrants} g on g.id = t.grant_id join ${installations} i on i.id = g.installation_id
         where t.token_hash = ${tokenHash} and i.application_id = (select id from client where authenticated)
      ),
      token as (update ${oauthTokens} set revoked_at = now() where id = (select id from presented) and revoked_at is null returning id),
      grant_revoked as (
        update ${oauthGrants} set revoked_at = now() where id = (select grant_id from presented where kind = 'refresh') and revoked_at is null
        returning id, ${grantOrg}
      ),
      ${tokenRevokedAudit(request)}
    select ${clientColumns}, exists (select 1 from presented) as revoked, ${revokedGrantColumn("grant_revoked")}`,
  );
}

/** The installation an access token is of, and its rate limit; null when the token is not live. */
export async function tokenInstallation(db: Database, accessTokenHash: string) {
  const [row] = await run<{ installationId: string; rateLimit: number }>(
    db,
    sql`select i.id as "installationId", i.rate_limit as "rateLimit"
          from ${oauthTokens} t join ${oauthGrants} g on g.id = t.grant_id join ${installations} i on i.id = g.installation_id
         where t.token_hash = ${accessTokenHash} and t.kind = 'access' and t.expires_at > now() and t.revoked_at is null
           and g.revoked_at is null and i.uninstalled_at is null`,
  );
  return row ?? null;
}
