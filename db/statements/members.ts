import type { Actor } from "../../domain/actor.ts";
import type { AuditRequest } from "../../domain/audit.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { ROLE_SCOPES, SETTINGS_ROLES, type Role } from "../../domain/roles.ts";
import type { Database } from "../client.ts";
import { applications, memberships, sessions, users } from "../schema/index.ts";
import { endedColumn, endInstallations, INSTALLER_GONE, type EndedInstallation } from "./app-access.ts";
import { installationTarget } from "./application-audit.ts";
import { auditCtes, auditTarget } from "./engine/audit.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { parseEvent } from "./engine/events.ts";
import { iso, withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";
import { linkedPersonnelId, linkEventColumn, unlinkRemoved } from "./personnel-links.ts";

// Members: a person's membership of an organisation, with its role (memberships). Any member
// lists them; owners and admins change roles and remove members; anyone may leave. The
// installations that rested on a member (docs/apps.md "Whose authority an installation rests on")
// end in the statement that removes them or gives them a role that holds less.

export interface Member {
  userId: string;
  name: string;
  email: string;
  role: Role;
  joinedAt: string;
  /** The personnel record the member is (personnel-links.ts), or null. */
  personnelId: string | null;
}

const memberJson = sql`json_build_object('userId', u.id, 'name', u.name, 'email', u.email, 'role', m.role, 'joinedAt', ${iso("m.created_at")},
  'personnelId', ${linkedPersonnelId("m")})`;

export async function listMembers(db: Database, actor: Actor): Promise<SettingsOutcome<{ members: Member[] }>> {
  const { caller, role, userId, row } = await withCaller<{ members: Member[] | null }>(
    db,
    actor,
    null,
    null,
    sql`(select json_agg(${memberJson} order by m.created_at, u.id)
           from ${memberships} m join ${users} u on u.id = m.user_id where m.org_id = ${CALLER_ORG}) as members`,
  );
  return { caller, role, userId, members: row.members ?? [] };
}

export interface MemberChange {
  /** The member exists in the caller's organisation. */
  found: boolean;
  /** The caller's role may make this change (only an owner makes or unmakes an owner). */
  permitted: boolean;
  /** After the change the organisation still has an owner. */
  keepsOwner: boolean;
  member: Member | null;
  orgId: string | null;
  /** The installations that rested on the member and ended with the change (docs/apps.md "Whose authority"). */
  ended: EndedInstallation[];
  /** personnel.updated of the person a removed member was, unlinked with the removal. */
  unlinked: OpsEvent | null;
}

/**
 * The change's entries, over `changed` (the membership row) and `ended` (the installations that
 * rested on the member): the member's role changed, or their removal or leaving; then each
 * installation ended with it.
 */
const memberChangedAudit = (role: Role | null, request: AuditRequest) =>
  auditCtes(
    {
      action: ["member.role_changed", "member.removed", "member.left", "application.installation_ended"],
      order: sql`s.position`,
      source: sql`select m.org_id, ${auditTarget("member", sql`u.id`, sql`u.name`)} as target,
                         jsonb_build_object('role', jsonb_build_object('from', (select role from target), 'to', ${role}::text)) as changes,
                         case when ${role}::text is not null then 'member.role_changed'
                              when m.user_id = (select user_id from key) then 'member.left' else 'member.removed' end as action,
                         0::bigint as position
                    from changed m join ${users} u on u.id = m.user_id
                  union all
                  select e.org_id, ${installationTarget("e", "a")}, ${installationEndedChanges(role)}, 'application.installation_ended',
                         row_number() over (order by e.id)
                    from ended e join ${applications} a on a.id = e.application_id`,
    },
    request,
  );

/** An installation ended with its installer's membership: the scopes it held, and the installer's role before and after (null: gone). */
const installationEndedChanges = (role: Role | null) =>
  sql`jsonb_build_object('scopes', jsonb_build_object('from', to_jsonb(e.scopes), 'to', null),
                         'installerRole', jsonb_build_object('from', (select role from target), 'to', ${role}::text))`;

/**
 * Changes a member's role (`role`) or removes them (`role` null). Owners and admins may; a person
 * may also remove themselves (leave). The owners are row-locked while counted, so two owners
 * leaving at once cannot leave the organisation with none.
 */
export async function changeMember(
  db: Database,
  actor: Actor,
  targetUserId: string,
  role: Role | null,
  request: AuditRequest,
): Promise<SettingsOutcome<MemberChange>> {
  const leaving = role === null;
  const write =
    role === null
      ? sql`delete from ${memberships} m where m.org_id = ${CALLER_ORG} and m.user_id = ${targetUserId}::uuid and (select ok from checks) returning m.*`
      : sql`update ${memberships} m set role = ${role}, updated_at = now()
             where m.org_id = ${CALLER_ORG} and m.user_id = ${targetUserId}::uuid and (select ok from checks) returning m.*`;
  // The target's and the owners' rows are locked in one scan, in user_id order: two changes at
  // once (two owners demoting each other) then wait for each other instead of deadlocking.
  const ctes = sql`locked as (
        select m.user_id, m.role from ${memberships} m
         where m.org_id = ${CALLER_ORG} and (m.role = 'owner' or m.user_id = ${targetUserId}::uuid)
         order by m.user_id for update
      ),
      target as (select l.role from locked l where l.user_id = ${targetUserId}::uuid),
      owners as (select count(*)::int as n from locked l where l.role = 'owner'),
      rules as (
        select
          -- owners and admins change others; anyone may leave; only an owner touches an owner's seat
          ((select role from key) = any(${sql.param(SETTINGS_ROLES)}::text[]) or (${leaving} and (select user_id from key) = ${targetUserId}::uuid))
            and ((select role from key) = 'owner' or ((select role from target) is distinct from 'owner' and ${role ?? ""} <> 'owner')) as permitted,
          not ((select role from target) = 'owner' and ${role ?? ""} <> 'owner' and (select n from owners) <= 1) as keeps_owner
      ),
      checks as (select exists (select 1 from target) and r.permitted and r.keeps_owner as ok from rules r),
      changed as (${write}),
      sessions_ended as (
        -- a member who leaves or is removed stops acting for the organisation at once
        update ${sessions} s set active_org_id = null
         where ${leaving} and s.user_id = ${targetUserId}::uuid and s.active_org_id = ${CALLER_ORG} and exists (select 1 from changed)
        returning 1
      ),
      ${endInstallations(
        sql`x.org_id = ${CALLER_ORG} and x.installed_by_user_id = ${targetUserId}::uuid and exists (select 1 from changed)
            and ${role === null ? sql`true` : sql`not (x.scopes <@ ${sql.param(ROLE_SCOPES[role])}::text[])`}`,
        INSTALLER_GONE,
      )},
      ${unlinkRemoved(leaving, targetUserId)},
      ${memberChangedAudit(role, request)}`;
  const {
    caller,
    role: callerRole,
    userId,
    row,
  } = await withCaller<{
    found: boolean;
    permitted: boolean | null;
    keepsOwner: boolean | null;
    member: Member | null;
    orgId: string | null;
    ended: EndedInstallation[];
    linkEvent: OpsEvent | null;
  }>(
    db,
    actor,
    null,
    ctes,
    sql`exists (select 1 from target) as found, (select permitted from rules) as permitted, (select keeps_owner from rules) as "keepsOwner",
        (select ${memberJson} from changed m join ${users} u on u.id = m.user_id) as member,
        (select count(*) from sessions_ended) as "sessionsEnded", ${CALLER_ORG} as "orgId", ${endedColumn}, ${linkEventColumn}`,
    { writes: true },
  );
  return {
    caller,
    role: callerRole,
    userId,
    found: row.found,
    permitted: row.permitted === true,
    keepsOwner: row.keepsOwner !== false,
    member: row.member,
    orgId: row.orgId,
    ended: row.ended,
    unlinked: row.linkEvent && parseEvent(row.linkEvent),
  };
}

/** The organisations a person belongs to (a session that ends is told to each of their rooms). */
export async function organisationsOf(db: Database, userId: string): Promise<string[]> {
  const rows = await run<{ orgId: string }>(
    db,
    sql`select org_id as "orgId" from ${memberships} where user_id = ${userId}::uuid order by org_id`,
  );
  return rows.map((row) => row.orgId);
}
