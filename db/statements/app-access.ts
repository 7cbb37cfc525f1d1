import type { SQL } from "drizzle-orm";
import { NO_REQUEST } from "../../domain/audit.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { applications, installations, memberships, oauthGrants, oauthTokens, webhooks } from "../schema/index.ts";
import { installationTarget } from "./application-audit.ts";
import { auditCtes, SYSTEM_ACTOR_JSON } from "./engine/audit.ts";
import { appScopes, installerHolds, installerJoin, liveGrant, liveGrantJoins, roleScopesOf, unconfirmedIn } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// An OAuth application's access beyond one call (docs/apps.md "Realtime"): the grant a realtime
// token names, checked when its socket opens; installations ended (uninstalled, their application
// deleted, their installer's authority gone), and those ended and grants revoked lately, which the
// sweep repeats to the rooms; and the tokens, codes and grants that can no longer be used, which the
// sweep prunes.

/**
 * `ended`: the live installations `which` selects (over `x`), uninstalled now; `grants_ended` their
 * grants revoked; `hooks_stopped` the webhooks they registered turned off, saying `why`. Every token
 * of theirs is refused at once (the caller CTE reads it); the service then tells their rooms.
 */
export function endInstallations(which: SQL, why: string): SQL {
  return sql`ended as (
      update ${installations} x set uninstalled_at = now() where ${which} and x.uninstalled_at is null
      returning x.id, x.org_id, x.application_id, x.scopes
    ),
    grants_ended as (
      update ${oauthGrants} set revoked_at = now() where installation_id in (select id from ended) and revoked_at is null returning id
    ),
    hooks_stopped as (
      update ${webhooks} set enabled = false, disabled_reason = ${why}::text, updated_at = now(),
             version = version + 1
       where created_by_installation_id in (select id from ended) and enabled
      returning id
    )`;
}

/** What ending installations reports: each one ended, with its organisation, to tell the rooms. */
export interface EndedInstallation {
  id: string;
  orgId: string;
}
export const endedColumn = sql`coalesce((select json_agg(json_build_object('id', id, 'orgId', org_id)) from ended), '[]') as ended`;

export interface LiveGrant {
  orgId: string;
  grantId: string;
  installationId: string;
  appId: string;
  /** The person it acts for; null when the application acts as itself. */
  userId: string | null;
  scopes: Scope[];
  /** The person it acts for has an unconfirmed address, and the organisation requires it confirmed. */
  emailUnverified: boolean;
}

/** The grant, if it may still be used (as an access token of it would be: db/statements/engine/caller.ts), with what it holds now. */
export async function findLiveGrant(db: Database, grantId: string): Promise<LiveGrant | null> {
  const [row] = await run<LiveGrant>(
    db,
    sql`select i.org_id as "orgId", g.id as "grantId", i.id as "installationId", a.id as "appId", g.user_id as "userId",
               ${appScopes()} as scopes, ${unconfirmedIn(sql`i.org_id`, sql`u`)} as "emailUnverified"
          from (select ${grantId}::uuid as grant_id) t
          join ${liveGrantJoins}
         where ${liveGrant}`,
  );
  return row ?? null;
}

/** Why the webhooks of an installation whose installer left (or lost the role it needs) are off. */
export const INSTALLER_GONE = "the person who installed the application that registered it left, or lost the role it needs";

/**
 * The organisations (at most `limit`) with a live installation whose installer's authority is gone
 * by another path than a member change, which ends them itself: a membership deleted in the
 * database, or an installation made before the rule (docs/apps.md "Whose authority an installation
 * rests on"). Its tokens are refused already (caller.ts); the sweep ends it.
 */
export async function organisationsWithUnauthorisedInstallations(db: Database, limit: number): Promise<string[]> {
  const rows = await run<{ orgId: string }>(
    db,
    sql`select distinct i.org_id as "orgId" from ${installations} i ${installerJoin} where i.uninstalled_at is null and not ${installerHolds} limit ${limit}`,
  );
  return rows.map((row) => row.orgId);
}

/** Ends, in one organisation, every live installation whose installer's authority is gone; opsroom records each. */
export async function endUnauthorisedInstallations(db: Database, orgId: string): Promise<EndedInstallation[]> {
  const row = await runOne<{ ended: EndedInstallation[] }>(
    db,
    sql`with ${endInstallations(
      sql`x.org_id = ${orgId}::uuid and not coalesce(x.scopes <@ (select ${roleScopesOf("im")} from ${memberships} im
                                                                   where im.user_id = x.installed_by_user_id and im.org_id = x.org_id), false)`,
      INSTALLER_GONE,
    )},
    ${auditCtes(
      {
        action: "application.installation_ended",
        actor: SYSTEM_ACTOR_JSON,
        order: sql`s.position`,
        source: sql`select e.org_id, ${installationTarget("e", "a")} as target, row_number() over (order by e.id) as position,
                           jsonb_build_object('scopes', jsonb_build_object('from', to_jsonb(e.scopes), 'to', null)) as changes
                      from ended e join ${applications} a on a.id = e.application_id`,
      },
      NO_REQUEST,
    )}
    select ${endedColumn}`,
  );
  return row.ended;
}

/** What ended in the last `seconds`, by organisation: installations, and grants revoked apart from an ended installation. */
export interface EndedAccess {
  installations: string[];
  grants: string[];
}

export async function recentlyEndedAccess(db: Database, seconds: number): Promise<Map<string, EndedAccess>> {
  const since = sql`now() - make_interval(secs => ${seconds})`;
  const rows = await run<{ orgId: string; installations: string[] | null; grants: string[] | null }>(
    db,
    sql`with installations_ended as (
          select org_id, array_agg(id order by id) as ids from ${installations} where uninstalled_at > ${since} group by org_id
        ),
        grants_revoked as (
          select i.org_id, array_agg(g.id order by g.id) as ids
            from ${oauthGrants} g join ${installations} i on i.id = g.installation_id
           where g.revoked_at > ${since} and i.uninstalled_at is null
           group by i.org_id
        )
        select coalesce(e.org_id, r.org_id) as "orgId", e.ids as installations, r.ids as grants
          from installations_ended e full join grants_revoked r on r.org_id = e.org_id`,
  );
  return new Map(rows.map((row) => [row.orgId, { installations: row.installations ?? [], grants: row.grants ?? [] }]));
}

/** How long a revoked grant, or one with nothing left, is kept before it is pruned: past the sweep's repeats. */
const GRANT_KEPT = sql`interval '1 day'`;

/**
 * Prunes what can no longer be used: expired tokens (access tokens, and refresh tokens, which
 * are kept until their own expiry, used or revoked, so a reused one revokes its grant for as long
 * as it could have worked), grants revoked a day ago, and grants with no token left whose code can
 * no longer be exchanged (client credentials' grants once their token expired, codes never
 * exchanged, authorization grants whose refresh token expired), a day after they were made.
 */
export async function pruneAppTokens(db: Database): Promise<{ grants: number; tokens: number }> {
  const row = await runOne<{ grants: number; tokens: number }>(
    db,
    sql`with grants_pruned as (
          delete from ${oauthGrants} g
           where g.revoked_at < now() - ${GRANT_KEPT}
              or (g.created_at < now() - ${GRANT_KEPT}
                  and (g.code_expires_at is null or g.code_expires_at < now() - ${GRANT_KEPT})
                  and not exists (select 1 from ${oauthTokens} t where t.grant_id = g.id and t.expires_at > now()))
          returning g.id
        ),
        tokens_pruned as (
          delete from ${oauthTokens} t where t.expires_at <= now() and t.grant_id not in (select id from grants_pruned) returning 1
        )
        select (select count(*) from grants_pruned)::int as grants, (select count(*) from tokens_pruned)::int as tokens`,
  );
  return row;
}
