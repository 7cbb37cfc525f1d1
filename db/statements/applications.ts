import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { AuditRequest } from "../../domain/audit.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { applications, installations, organisations } from "../schema/index.ts";
import { endedColumn, endInstallations, type EndedInstallation } from "./app-access.ts";
import {
  applicationDeletedAudit,
  applicationRegisteredAudit,
  applicationSecretRotatedAudit,
  applicationUninstalledAudit,
  applicationUpdatedAudit,
  organisationUpdatedAudit,
} from "./application-audit.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { iso, MANAGE_SETTINGS, personJson, withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// The settings area's applications (docs/apps.md): those the caller's organisation registered, and
// the applications installed in it. Owners and admins, checked in each statement. Deleting an
// application or uninstalling one ends its installations in the same statement: their grants
// revoked (every token refused at once, in the caller CTE) and the webhooks they registered off.

export interface ApplicationRecord {
  id: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  scopes: Scope[];
  public: boolean;
  createdAt: string;
  createdBy: { id: string; name: string } | null;
}

const applicationJson = sql`json_build_object('id', a.id, 'clientId', a.client_id, 'name', a.name, 'redirectUris', a.redirect_uris,
  'scopes', a.scopes, 'public', a.public, 'createdAt', ${iso("a.created_at")}, 'createdBy', ${personJson("a.created_by_user_id")})`;

export type { EndedInstallation };

/** Why the webhooks of an installation uninstalled (or of a deleted application) are off. */
const UNINSTALLED = "the application that registered it was uninstalled";

/** The caller's organisation's application `id` (not deleted). */
const ownApplication = (id: string) => sql`a.id = ${id}::uuid and a.org_id = ${CALLER_ORG} and a.deleted_at is null`;

export async function listApplications(db: Database, actor: Actor): Promise<SettingsOutcome<{ applications: ApplicationRecord[] }>> {
  const { caller, role, userId, row } = await withCaller<{ applications: ApplicationRecord[] | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select json_agg(${applicationJson} order by a.created_at, a.id) from ${applications} a
          where a.org_id = ${CALLER_ORG} and a.deleted_at is null) as applications`,
  );
  return { caller, role, userId, applications: row.applications ?? [] };
}

export async function getApplication(db: Database, actor: Actor, id: string) {
  const { caller, row } = await withCaller<{ application: ApplicationRecord | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select ${applicationJson} from ${applications} a where ${ownApplication(id)}) as application`,
  );
  return { caller, application: row.application };
}

export type NewApplication = Omit<ApplicationRecord, "createdAt" | "createdBy"> & { secretHash: string | null };

export async function createApplication(db: Database, actor: Actor, app: NewApplication, request: AuditRequest) {
  const { caller, row } = await withCaller<{ application: ApplicationRecord | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`inserted as (
          insert into ${applications} (id, org_id, client_id, name, redirect_uris, scopes, public, secret_hash, created_by_user_id)
          select ${app.id}::uuid, org_id, ${app.clientId}, ${app.name}, ${sql.param(app.redirectUris)}::text[], ${sql.param(app.scopes)}::text[],
                 ${app.public}, ${app.secretHash}::text, (select user_id from key)
            from auth
          returning *
        ),
        ${applicationRegisteredAudit(request)}`,
    sql`(select ${applicationJson} from inserted a) as application`,
  );
  return { caller, application: row.application };
}

export interface ApplicationChange {
  name?: string | undefined;
  redirectUris?: string[] | undefined;
  scopes?: Scope[] | undefined;
}

/** Changes an application; a narrower `scopes` narrows what every installation and grant of it holds from now on (caller CTE). */
export async function updateApplication(db: Database, actor: Actor, id: string, change: ApplicationChange, request: AuditRequest) {
  const set = (column: string, value: SQL | null) => (value ? sql`${sql.raw(column)} = ${value}, ` : sql``);
  const { caller, row } = await withCaller<{ application: ApplicationRecord | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`locked as (select a.* from ${applications} a where ${ownApplication(id)} and exists (select 1 from auth) for no key update),
        changed as (
          update ${applications} a set ${set("name", change.name === undefined ? null : sql`${change.name}`)}${set(
            "redirect_uris",
            change.redirectUris ? sql`${sql.param(change.redirectUris)}::text[]` : null,
          )}${set("scopes", change.scopes ? sql`${sql.param(change.scopes)}::text[]` : null)}updated_at = now()
           where a.id = (select id from locked)
          returning a.*
        ),
        ${applicationUpdatedAudit(request)}`,
    sql`(select ${applicationJson} from changed a) as application`,
  );
  return { caller, application: row.application };
}

/** Deletes an application: every installation of it ended, in every organisation. */
export async function deleteApplication(db: Database, actor: Actor, id: string, request: AuditRequest) {
  const { caller, row } = await withCaller<{ deleted: ApplicationRecord | null; ended: EndedInstallation[] }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`deleted as (
          update ${applications} a set deleted_at = now(), updated_at = now() where ${ownApplication(id)} and exists (select 1 from auth)
          returning a.*
        ),
        ${endInstallations(sql`x.application_id = (select id from deleted)`, UNINSTALLED)},
        ${applicationDeletedAudit(request)}`,
    sql`(select ${applicationJson} from deleted a) as deleted, ${endedColumn}`,
  );
  return { caller, deleted: row.deleted, ended: row.ended };
}

/** A new secret; the current one keeps working `overlapSeconds` (none: at once refused). Null for a public or unknown application. */
export async function rotateSecret(
  db: Database,
  actor: Actor,
  id: string,
  secret: { hash: string; overlapSeconds: number },
  request: AuditRequest,
) {
  const { hash: secretHash, overlapSeconds } = secret;
  const { caller, row } = await withCaller<{ rotated: { previousSecretExpiresAt: string | null } | null; found: boolean }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`rotated as (
          update ${applications} a set secret_hash = ${secretHash},
                 previous_secret_hash = case when ${overlapSeconds}::int > 0 then a.secret_hash end,
                 previous_secret_expires_at = case when ${overlapSeconds}::int > 0 then now() + make_interval(secs => ${overlapSeconds}) end,
                 updated_at = now()
           where ${ownApplication(id)} and not a.public and exists (select 1 from auth)
          returning a.id, a.org_id, a.name, a.previous_secret_expires_at
        ),
        ${applicationSecretRotatedAudit(request)}`,
    sql`(select json_build_object('previousSecretExpiresAt', ${iso("previous_secret_expires_at")}) from rotated) as rotated,
        exists (select 1 from ${applications} a where ${ownApplication(id)}) as found`,
  );
  return { caller, rotated: row.rotated, found: row.found };
}

export interface InstallationRecord {
  id: string;
  application: { id: string; name: string; clientId: string };
  scopes: Scope[];
  installedBy: { id: string; name: string } | null;
  installedAt: string;
  lastUsedAt: string | null;
}

const installationJson = sql`json_build_object('id', i.id,
  'application', json_build_object('id', a.id, 'name', a.name, 'clientId', a.client_id), 'scopes', i.scopes,
  'installedBy', ${personJson("i.installed_by_user_id")}, 'installedAt', ${iso("i.installed_at")}, 'lastUsedAt', ${iso("i.last_used_at")})`;

export async function listInstallations(db: Database, actor: Actor) {
  const { caller, row } = await withCaller<{ installations: InstallationRecord[] | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select json_agg(${installationJson} order by i.installed_at, i.id) from ${installations} i join ${applications} a on a.id = i.application_id
          where i.org_id = ${CALLER_ORG} and i.uninstalled_at is null and a.deleted_at is null) as installations`,
  );
  return { caller, installations: row.installations ?? [] };
}

/** Uninstalls an application from the caller's organisation. */
export async function uninstall(db: Database, actor: Actor, installationId: string, request: AuditRequest) {
  const { caller, row } = await withCaller<{ ended: EndedInstallation[] }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`${endInstallations(sql`x.id = ${installationId}::uuid and x.org_id = ${CALLER_ORG}`, UNINSTALLED)}, ${applicationUninstalledAudit(request)}`,
    endedColumn,
  );
  return { caller, ended: row.ended };
}

/** The organisation's settings (PATCH /v1/settings/organisation); a change names only what it changes. */
export interface OrganisationSettings {
  allowDynamicClientRegistration: boolean;
  requireVerifiedEmail: boolean;
}

/**
 * The organisation's settings, changed when `change` names a value that differs and the caller is
 * an owner: only then is the row written and organisation.updated recorded (`before`, the row as
 * the statement found it, gives the audit entry its "from").
 */
export async function organisationSettings(db: Database, actor: Actor, change: Partial<OrganisationSettings>, request: AuditRequest) {
  const allow = change.allowDynamicClientRegistration ?? null;
  const require = change.requireVerifiedEmail ?? null;
  const { caller, role, row } = await withCaller<{ settings: OrganisationSettings | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`before as (
          select o.allow_dynamic_client_registration, o.require_verified_email from ${organisations} o where o.id = ${CALLER_ORG}
        ),
        changed as (
          update ${organisations} o
             set allow_dynamic_client_registration = coalesce(${allow}::boolean, o.allow_dynamic_client_registration),
                 require_verified_email = coalesce(${require}::boolean, o.require_verified_email), updated_at = now()
           where o.id = ${CALLER_ORG} and (select role from key) = 'owner'
             and (o.allow_dynamic_client_registration is distinct from coalesce(${allow}::boolean, o.allow_dynamic_client_registration)
                  or o.require_verified_email is distinct from coalesce(${require}::boolean, o.require_verified_email))
          returning o.id, o.id as org_id, o.name, o.allow_dynamic_client_registration, o.require_verified_email
        ),
        ${organisationUpdatedAudit(request)}`,
    sql`(select json_build_object('allowDynamicClientRegistration', s.allow_dynamic_client_registration,
                                  'requireVerifiedEmail', s.require_verified_email)
           from (select allow_dynamic_client_registration, require_verified_email from changed
                 union all select * from before where not exists (select 1 from changed)) s) as settings`,
  );
  return { caller, role, settings: row.settings };
}

/** An application registered dynamically (RFC 7591): owned by no organisation. */
export async function insertDynamicApplication(db: Database, app: NewApplication): Promise<void> {
  await run(
    db,
    sql`insert into ${applications} (id, org_id, client_id, name, redirect_uris, scopes, public, secret_hash)
        values (${app.id}::uuid, null, ${app.clientId}, ${app.name}, ${sql.param(app.redirectUris)}::text[], ${sql.param(app.scopes)}::text[],
                ${app.public}, ${app.secretHash}::text)`,
  );
}

/** An installation made by the operator (the demo's seed), as a consent would have made it. */
export async function insertInstallation(
  db: Database,
  installation: { id: string; orgId: string; applicationId: string; scopes: Scope[]; installedByUserId: string | null },
): Promise<void> {
  await run(
    db,
    sql`insert into ${installations} (id, org_id, application_id, scopes, installed_by_user_id)
        values (${installation.id}::uuid, ${installation.orgId}::uuid, ${installation.applicationId}::uuid,
                ${sql.param(installation.scopes)}::text[], ${installation.installedByUserId}::uuid)`,
  );
}
