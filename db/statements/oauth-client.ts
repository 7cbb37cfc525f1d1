import type { SQL } from "drizzle-orm";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import { applications, installations, oauthTokens } from "../schema/index.ts";
import { sql } from "./engine/sql-tag.ts";

// What the token endpoint's statements (oauth-token.ts, oauth-revoke.ts) share: the client as it
// authenticates, the tokens a success issues, and the columns every one of them answers with.

/** The client as it authenticates: its id, and the SHA-256 of the secret it sent (null: none). */
export interface ClientCredentials {
  clientId: string;
  secretHash: string | null;
}

/** A token to store: its id and hash (the value goes to the client only), and how long it lives. */
export interface IssuedToken {
  id: string;
  hash: string;
  expiresInSeconds: number;
}

/** The tokens a success issues, as stored. */
export interface IssuedTokens {
  /** `scopes`: what the access token holds when a refresh asked for less than its grant (RFC 6749 §6); null: the grant's. */
  access: IssuedToken & { scopes: Scope[] | null };
  refresh: IssuedToken | null;
}

/** A grant a token statement revoked (a reused code or refresh token, a refresh token revoked), with its organisation: its room is told. */
export interface RevokedGrant {
  id: string;
  orgId: string;
}
export const grantOrg = sql`(select org_id from ${installations} where id = installation_id) as org_id`;
export const revokedGrantColumn = (cte: string) =>
  sql`(select json_build_object('id', id, 'orgId', org_id) from ${sql.raw(cte)}) as "revokedGrant"`;

/** What every token statement reports about its client. */
export interface ClientRow {
  clientFound: boolean;
  /** The secret matched (the current one, or the previous one within its overlap); a public client sent none. */
  clientAuthenticated: boolean;
  clientPublic: boolean | null;
}

/**
 * `client`: the application with this client id, not deleted, and whether it authenticated: a
 * confidential one by its current secret or, until it expires, its previous one; a public one by
 * sending none.
 */
export function clientCte(client: ClientCredentials): SQL {
  const hash = client.secretHash;
  return sql`client as (
      select a.id, a.public,
             case when a.public then ${hash}::text is null
                  else coalesce(a.secret_hash = ${hash}::text
                         or (a.previous_secret_hash = ${hash}::text and a.previous_secret_expires_at > now()), false) end as authenticated
        from ${applications} a where a.client_id = ${client.clientId} and a.deleted_at is null
    )`;
}

/** Boolean columns read from the one-row CTE `cte` (false when it has no row), by the outcome's (camelCase) key. */
export const flagsOf = (cte: string, flags: Record<string, string>) =>
  sql.raw(
    Object.entries(flags)
      .map(([name, expression]) => `coalesce((select ${expression} from ${cte}), false) as "${name}"`)
      .join(", "),
  );

export const clientColumns = sql`exists (select 1 from client) as "clientFound", coalesce((select authenticated from client), false) as "clientAuthenticated",
  (select public from client) as "clientPublic"`;

/** `issued`: the tokens of the grant `grant` (a CTE with one row, or none), inserted. */
export function issueCte(grant: SQL, tokens: IssuedTokens): SQL {
  const row = (token: IssuedToken, kind: string, scopes: Scope[] | null) =>
    sql`select ${token.id}::uuid, g.id, ${kind}, ${token.hash}, ${scopes ? sql`${sql.param(scopes)}::text[]` : sql`null::text[]`},
               now() + make_interval(secs => ${token.expiresInSeconds}) from ${grant} g`;
  const refresh = tokens.refresh ? sql` union all ${row(tokens.refresh, "refresh", null)}` : sql``;
  return sql`issued as (
      insert into ${oauthTokens} (id, grant_id, kind, token_hash, scopes, expires_at)
      ${row(tokens.access, "access", tokens.access.scopes)}${refresh}
      returning grant_id
    )`;
}

/**
 * A grant's scopes as the API holds them, in catalogue order, within those of its installation and
 * application; within `narrowed` too (a text[] expression) when it is given and not null.
 */
export const grantScopes = (grant: string, narrowed: SQL = sql`null::text[]`) =>
  sql`array(select c.s from unnest(${sql.param(ALL_SCOPES)}::text[]) with ordinality as c(s, n)
  where c.s = any(${sql.raw(grant)}.scopes) and (${narrowed} is null or c.s = any(${narrowed})) order by c.n)`;
