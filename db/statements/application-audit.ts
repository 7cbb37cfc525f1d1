import type { SQL } from "drizzle-orm";
import type { AuditRequest } from "../../domain/audit.ts";
import type { GrantType } from "../../domain/oauth.ts";
import { applications, installations, oauthGrants, users } from "../schema/index.ts";
import { auditCtes, auditTarget, rowChanges } from "./engine/audit.ts";
import { appActorJson } from "./engine/caller.ts";
import { iso } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";

// The audit entries of OAuth applications (docs/audit-log.md), each appended by the statement that
// makes the change: registered, changed, secret rotated, deleted in the settings area; installed
// (or its scopes widened) by a consent; uninstalled; a grant revoked because its code or refresh
// token was presented again. Never a secret: a rotation records when the old secret stops working.

const applicationTarget = (a: string) => auditTarget("application", sql.raw(`${a}.id`), sql.raw(`${a}.name`));
/** An installation is named by its application's name (`a`), as it was then. */
export const installationTarget = (i: string, a: string) => auditTarget("installation", sql.raw(`${i}.id`), sql.raw(`${a}.name`));

/** The fields of an application whose change the log records, as the API names them, over a row `a`. */
const FIELDS = {
  name: (a: string) => sql.raw(`${a}.name`),
  redirectUris: (a: string) => sql.raw(`${a}.redirect_uris`),
  scopes: (a: string) => sql.raw(`${a}.scopes`),
  public: (a: string) => sql.raw(`${a}.public`),
};

const fieldChanges = (before: string | null, after: string) => rowChanges(FIELDS, before, after);

/** Over `inserted`: what it was registered with. */
export const applicationRegisteredAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.registered",
      source: sql`select a.org_id, ${applicationTarget("a")} as target, ${fieldChanges(null, "a")} as changes from inserted a`,
    },
    request,
  );

/** Over `changed` and `locked` (the row before): each field that changed; a change that changed nothing records nothing. */
export const applicationUpdatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.updated",
      source: sql`select c.org_id, ${applicationTarget("l")} as target, x.changes
                    from changed c join locked l on l.id = c.id cross join lateral (select ${fieldChanges("l", "c")} as changes) x
                   where x.changes is not null`,
    },
    request,
  );

/** Over `rotated`: until when the previous secret works (null: it stopped at once). */
export const applicationSecretRotatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.secret_rotated",
      source: sql`select a.org_id, ${applicationTarget("a")} as target,
                         jsonb_build_object('previousSecretExpiresAt', jsonb_build_object('from', null, 'to', ${iso("a.previous_secret_expires_at")}))
                           as changes
                    from rotated a`,
    },
    request,
  );

/** Over `deleted`, and `ended` (every installation of it, in every organisation): how many ended. */
export const applicationDeletedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.deleted",
      source: sql`select a.org_id, ${applicationTarget("a")} as target,
                         jsonb_build_object('installations', jsonb_build_object('from', (select count(*) from ended), 'to', 0)) as changes
                    from deleted a`,
    },
    request,
  );

/** Over `ended` (one installation of the caller's organisation): the scopes it held. */
export const applicationUninstalledAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.uninstalled",
      source: sql`select e.org_id, ${installationTarget("e", "a")} as target,
                         jsonb_build_object('scopes', jsonb_build_object('from', to_jsonb(e.scopes), 'to', null)) as changes
                    from ended e join ${applications} a on a.id = e.application_id`,
    },
    request,
  );

/**
 * A consent, over `installed` (the installation as it is now), `previous` (as it was, if it was)
 * and `person`: application.installed when it was not installed (or uninstalled), with the scopes
 * granted; application.scopes_widened when it was and now holds more. A consent that changes
 * nothing of the installation (a second person allowing what it holds) records nothing.
 */
export const applicationInstalledAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: ["application.installed", "application.scopes_widened"],
      actor: sql`s.actor`,
      source: sql`select p.org_id, ${installationTarget("i", "a")} as target,
                         jsonb_build_object('scopes', jsonb_build_object('from', case when x.fresh then null else to_jsonb(pr.scopes) end,
                                                                         'to', to_jsonb(i.scopes))) as changes,
                         case when x.fresh then 'application.installed' else 'application.scopes_widened' end as action,
                         jsonb_build_object('type', 'user', 'id', u.id, 'name', u.name) as actor
                    from installed i join person p on true join ${applications} a on a.id = i.application_id join ${users} u on u.id = p.user_id
                    left join previous pr on true
                    cross join lateral (select pr.id is null or pr.ended as fresh) x
                   where x.fresh or pr.scopes is distinct from i.scopes`,
    },
    request,
  );

/** Over `x` (a grant: its installation_id and user_id), its installation, application and person, named as the entry names them. */
const grantParties = sql`join ${installations} i on i.id = x.installation_id join ${applications} a on a.id = i.application_id
                    left join ${users} u on u.id = x.user_id`;

/**
 * A token statement's entry, of which at most one of two happens: over `reuse` (the grant's row as
 * revoked), the grant revoked because its authorization code or refresh token was presented again
 * (`reused`); over `issuedOf` (the grant the tokens were issued of, when `issued` has rows), the
 * tokens issued, with the grant type and `scopes` (what the access token holds). The application
 * (and the person it acts for) is the actor; the target is the installation.
 */
export function tokenGrantAudit(
  request: AuditRequest,
  issued: { grantType: GrantType; issuedOf: string; scopes: SQL },
  reused: "application.code_reused" | "application.refresh_reused" | null = null,
) {
  const reuse = reused
    ? sql`select r.installation_id, r.user_id, ${reused}::text as action,
                 jsonb_build_object('grantRevoked', jsonb_build_object('from', null, 'to', r.id)) as changes
            from reuse r
          union all `
    : sql``;
  return auditCtes(
    {
      action: reused ? [reused, "application.token_issued"] : ["application.token_issued"],
      actor: sql`s.actor`,
      source: sql`select i.org_id, ${installationTarget("i", "a")} as target, x.changes, x.action, ${appActorJson(sql`a`, sql`u`)} as actor
                    from (${reuse}select g.installation_id, g.user_id, 'application.token_issued'::text as action,
                                 jsonb_build_object('grantType', jsonb_build_object('from', null, 'to', ${issued.grantType}::text),
                                                    'grant', jsonb_build_object('from', null, 'to', g.id),
                                                    'scopes', jsonb_build_object('from', null, 'to', to_jsonb(${issued.scopes}))) as changes
                            from ${sql.raw(issued.issuedOf)} g where exists (select 1 from issued)) x
                    ${grantParties}`,
    },
    request,
  );
}

/**
 * RFC 7009: a token revoked by its application, over `presented` (the token: its kind and grant)
 * when `token` has its row: the kind revoked and, for a refresh token, the grant revoked with it.
 */
export const tokenRevokedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "application.token_revoked",
      actor: sql`s.actor`,
      source: sql`select i.org_id, ${installationTarget("i", "a")} as target, ${appActorJson(sql`a`, sql`u`)} as actor,
                         jsonb_build_object('token', jsonb_build_object('from', x.kind, 'to', null))
                           || case when x.kind = 'refresh' then jsonb_build_object('grantRevoked', jsonb_build_object('from', null, 'to', x.grant_id))
                              else '{}'::jsonb end as changes
                    from (select p.kind, p.grant_id, g.installation_id, g.user_id from presented p join ${oauthGrants} g on g.id = p.grant_id
                           where exists (select 1 from token)) x
                    ${grantParties}`,
    },
    request,
  );

/** `{ field: { from, to } }` when the setting `column` of `before` b and `changed` c differ, else {}. */
const settingChange = (field: string, column: string) =>
  sql`case when b.${sql.raw(column)} is distinct from c.${sql.raw(column)}
        then jsonb_build_object(${field}::text, jsonb_build_object('from', b.${sql.raw(column)}, 'to', c.${sql.raw(column)})) else '{}'::jsonb end`;

/**
 * The organisation's settings changed (PATCH /v1/settings/organisation), over `before` (the row as
 * found) and `changed` (as written, only when a setting differed): each setting that changed, from
 * and to. A no-op writes nothing.
 */
export const organisationUpdatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "organisation.updated",
      source: sql`select c.org_id, ${auditTarget("organisation", sql`c.id`, sql`c.name`)} as target,
                         ${settingChange("allowDynamicClientRegistration", "allow_dynamic_client_registration")}
                           || ${settingChange("requireVerifiedEmail", "require_verified_email")} as changes
                    from changed c cross join before b`,
    },
    request,
  );
