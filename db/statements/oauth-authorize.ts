import type { AuditRequest } from "../../domain/audit.ts";
import { AUTHORIZATION_CODE_SECONDS } from "../../domain/oauth.ts";
import type { Role } from "../../domain/roles.ts";
import { ALL_SCOPES, type Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { applications, installations, memberships, oauthGrants, organisations, sessions } from "../schema/index.ts";
import { applicationInstalledAudit } from "./application-audit.ts";
import { roleScopes, roleScopesOf } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// The authorization endpoint's and the consent page's statements (docs/apps.md): the application
// a request names, the organisations the signed-in person may install it in, and the consent itself:
// the installation made or widened and the grant with its single-use code, in one statement.

export interface Client {
  id: string;
  clientId: string;
  name: string;
  /** The organisation that registered it; null for one registered dynamically. */
  orgId: string | null;
  redirectUris: string[];
  scopes: Scope[];
  public: boolean;
}

/** The application with this client id, unless deleted. */
export async function findClient(db: Database, clientId: string): Promise<Client | null> {
  const [row] = await run<Client>(
    db,
    sql`select id, client_id as "clientId", name, org_id as "orgId", redirect_uris as "redirectUris", scopes, public
          from ${applications} where client_id = ${clientId} and deleted_at is null`,
  );
  return row ?? null;
}

export interface ConsentOrganisation {
  id: string;
  name: string;
  role: Role;
  /** The organisation's owner allows dynamically registered applications. */
  allowsDynamic: boolean;
}

/** The organisations of the person whose session this is, in joining order; empty when the session has ended. */
export async function consentOrganisations(db: Database, sessionToken: string): Promise<ConsentOrganisation[]> {
  return run<ConsentOrganisation>(
    db,
    sql`select o.id, o.name, m.role, o.allow_dynamic_client_registration as "allowsDynamic"
          from ${sessions} s join ${memberships} m on m.user_id = s.user_id join ${organisations} o on o.id = m.org_id
         where s.token = ${sessionToken} and s.expires_at > now()
         order by m.created_at, o.id`,
  );
}

export interface Consent {
  applicationId: string;
  orgId: string;
  /** Already within the application's scopes; the statement narrows them to the person's role's. */
  scopes: Scope[];
  resource: string | null;
  codeHash: string;
  challenge: string;
  redirectUri: string;
  installationId: string;
  grantId: string;
}

export interface ConsentOutcome {
  /** The session is live and its person a member of the organisation. */
  member: boolean;
  /** The application may be installed there (registered by an organisation, or dynamic where the owner allows it). */
  installable: boolean;
  /** The scopes granted: asked ∩ the application's ∩ the person's role's; empty: nothing was written. */
  scopes: Scope[];
  granted: boolean;
}

/**
 * A person allows the application in one of their organisations: the installation is made (or,
 * uninstalled, made afresh; installed, widened by what this consent grants), and the grant with
 * its code, valid AUTHORIZATION_CODE_SECONDS; the audit entry of the installation, if it changed.
 * `previous` (the installation as it was, locked) is read by the upsert, so it is read before it.
 */
export async function consent(db: Database, sessionToken: string, request: Consent, audit: AuditRequest): Promise<ConsentOutcome> {
  return runOne<ConsentOutcome>(
    db,
    sql`with person as (
        select s.user_id, m.org_id, m.role, ${roleScopes} as role_scopes
          from ${sessions} s join ${memberships} m on m.user_id = s.user_id and m.org_id = ${request.orgId}::uuid
         where s.token = ${sessionToken} and s.expires_at > now()
      ),
      app as (
        select a.id from ${applications} a join ${organisations} o on o.id = ${request.orgId}::uuid
         where a.id = ${request.applicationId}::uuid and a.deleted_at is null and (a.org_id is not null or o.allow_dynamic_client_registration)
      ),
      granted as (
        select array(select c.s from unnest(${sql.param(ALL_SCOPES)}::text[]) with ordinality as c(s, n)
                      where c.s = any(${sql.param(request.scopes)}::text[]) and c.s = any(p.role_scopes) order by c.n) as scopes
          from person p where exists (select 1 from app)
      ),
      previous as (
        select x.id, x.scopes, x.uninstalled_at is not null or not coalesce(x.scopes <@ ${roleScopesOf("im")}, false) as ended
          from ${installations} x left join ${memberships} im on im.user_id = x.installed_by_user_id and im.org_id = x.org_id
         where x.application_id = ${request.applicationId}::uuid and x.org_id = (select org_id from person) and exists (select 1 from granted)
           for no key update of x
      ),
      widened as (
        select array(select c.s from unnest(${sql.param(ALL_SCOPES)}::text[]) with ordinality as c(s, n)
                      where c.s = any(pr.scopes) or c.s = any(g.scopes) order by c.n) as scopes,
               pr.id is null or pr.ended as fresh
          from granted g left join previous pr on true
      ),
      installed as (
        -- Ended (uninstalled, or its installer's authority gone): installed afresh, resting on this person.
        -- Live: widened by what this consent grants, resting on its installer if their role holds all it
        -- now holds, else on this person (caller.ts installerHolds; roles are nested, so one of the two does).
        insert into ${installations} as i (id, org_id, application_id, scopes, installed_by_user_id)
        select ${request.installationId}::uuid, p.org_id, ${request.applicationId}::uuid, g.scopes, p.user_id
          from person p cross join granted g where cardinality(g.scopes) > 0
        on conflict (application_id, org_id) do update set
          scopes = case when (select fresh from widened) then excluded.scopes else (select scopes from widened) end,
          installed_by_user_id = case when not (select fresh from widened)
                                       and (select w.scopes from widened w) <@ (select ${roleScopesOf("im")} from ${memberships} im
                                                                                 where im.user_id = i.installed_by_user_id and im.org_id = i.org_id)
                                      then i.installed_by_user_id else excluded.installed_by_user_id end,
          installed_at = case when (select fresh from widened) then now() else i.installed_at end,
          last_used_at = case when (select fresh from widened) then null else i.last_used_at end,
          uninstalled_at = null
        returning i.id, i.application_id, i.scopes
      ),
      stale as (
        -- An installation that ended starts afresh: no grant of before lives again with it (an
        -- uninstall revoked them already; one whose installer's authority went by another path, not yet).
        update ${oauthGrants} set revoked_at = now()
         where installation_id = (select id from previous where ended) and revoked_at is null and exists (select 1 from installed)
        returning 1
      ),
      grant_made as (
        insert into ${oauthGrants} (id, installation_id, user_id, scopes, resource, code_hash, code_challenge, redirect_uri, code_expires_at)
        select ${request.grantId}::uuid, i.id, p.user_id, g.scopes, ${request.resource}::text, ${request.codeHash}, ${request.challenge},
               ${request.redirectUri}, now() + make_interval(secs => ${AUTHORIZATION_CODE_SECONDS})
          from installed i, person p, granted g
        returning id
      ),
      ${applicationInstalledAudit(audit)}
    select exists (select 1 from person) as member, exists (select 1 from app) as installable,
           coalesce((select scopes from granted), '{}') as scopes, exists (select 1 from grant_made) as granted`,
  );
}
