import type { Actor } from "../../domain/actor.ts";
import { NO_REQUEST, type AuditRequest } from "../../domain/audit.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { uuidv7 } from "../../domain/ids.ts";
import type { OutgoingMail } from "../../domain/mail.ts";
import type { Role } from "../../domain/roles.ts";
import type { Database } from "../client.ts";
import { invitations, memberships, organisations, personnel, sessions, users } from "../schema/index.ts";
import { auditCtes, auditTarget } from "./engine/audit.ts";
import { CALLER_ORG, orgWriteLock } from "./engine/caller.ts";
import { parseEvent } from "./engine/events.ts";
import { iso, MANAGE_SETTINGS, personJson, withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";
import { queueMail } from "./mail.ts";
import { linkEventColumn, linkEventCtes } from "./personnel-links.ts";

// Invitations: owners and admins invite an address with a role; the link's token is stored as its
// hash. Accepting one (at sign-up, or signed in) makes the membership.

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: { id: string; name: string } | null;
  createdAt: string;
  expiresAt: string;
}

const invitationJson = sql`json_build_object('id', i.id, 'email', i.email, 'role', i.role, 'invitedBy', ${personJson("i.invited_by")},
  'createdAt', ${iso("i.created_at")}, 'expiresAt', ${iso("i.expires_at")})`;

export async function listInvitations(db: Database, actor: Actor): Promise<SettingsOutcome<{ invitations: Invitation[] }>> {
  const { caller, role, userId, row } = await withCaller<{ invitations: Invitation[] | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select json_agg(${invitationJson} order by i.created_at, i.id) from ${invitations} i
          where i.org_id = ${CALLER_ORG} and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()) as invitations`,
  );
  return { caller, role, userId, invitations: row.invitations ?? [] };
}

export interface NewInvitation {
  id: string;
  /** The mail that carries the link, queued by the same statement (docs/mail.md); none for the seed's. */
  mail?: OutgoingMail;
  email: string;
  role: Role;
  tokenHash: string;
  expiresInDays: number;
}

/**
 * Invites an address: refused (null) when it already belongs to a member, or when only an owner
 * may invite with that role. One open invitation per address: a second is a unique violation.
 */
export async function createInvitation(
  db: Database,
  actor: Actor,
  invitation: NewInvitation,
  request: AuditRequest,
): Promise<SettingsOutcome<{ permitted: boolean; alreadyMember: boolean; invitation: Invitation | null; mailId: string | null }>> {
  const ctes = sql`rules as (
        select ((select role from key) = 'owner' or ${invitation.role} <> 'owner') as permitted,
               exists (select 1 from ${memberships} m join ${users} u on u.id = m.user_id where m.org_id = ${CALLER_ORG} and u.email = ${invitation.email}) as already_member
      ),
      inserted as (
        insert into ${invitations} (id, org_id, email, role, token_hash, invited_by, expires_at)
        select ${invitation.id}::uuid, ${CALLER_ORG}, ${invitation.email}, ${invitation.role}, ${invitation.tokenHash}, (select user_id from key),
               now() + make_interval(days => ${invitation.expiresInDays})
          from rules r where exists (select 1 from auth) and r.permitted and not r.already_member
        returning *
      ),
      mailed as (${
        invitation.mail
          ? sql`${queueMail(invitation.mail, { orgId: sql`i.org_id`, userId: sql`null::uuid` }, sql`inserted i`)} returning id`
          : sql`select null::uuid as id where false`
      }),
      ${auditCtes(
        {
          action: "member.invited",
          source: sql`select i.org_id, ${auditTarget("invitation", sql`i.id`, sql`i.email`)} as target,
                             jsonb_build_object('role', jsonb_build_object('from', null, 'to', i.role)) as changes
                        from inserted i`,
        },
        request,
      )}`;
  const { caller, role, userId, row } = await withCaller<{
    permitted: boolean | null;
    alreadyMember: boolean | null;
    invitation: Invitation | null;
    mailId: string | null;
  }>(
    db,
    actor,
    MANAGE_SETTINGS,
    ctes,
    sql`(select permitted from rules) as permitted, (select already_member from rules) as "alreadyMember",
        (select ${invitationJson} from inserted i) as invitation, (select id from mailed) as "mailId"`,
  );
  return {
    caller,
    role,
    userId,
    permitted: row.permitted === true,
    alreadyMember: row.alreadyMember === true,
    invitation: row.invitation,
    mailId: row.mailId,
  };
}

export async function revokeInvitation(db: Database, actor: Actor, invitationId: string): Promise<SettingsOutcome<{ revoked: boolean }>> {
  const { caller, role, userId, row } = await withCaller<{ revoked: boolean }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`revoked as (
          update ${invitations} i set revoked_at = now()
           where i.org_id = ${CALLER_ORG} and i.id = ${invitationId}::uuid and i.accepted_at is null and i.revoked_at is null
          returning 1
        )`,
    sql`exists (select 1 from revoked) as revoked`,
  );
  return { caller, role, userId, revoked: row.revoked };
}

/** An open invitation by its token's hash (the invitation page shows whom it is for). */
export async function findOpenInvitation(
  db: Database,
  tokenHash: string,
): Promise<{ email: string; role: Role; organisation: string } | null> {
  const [row] = await run<{ email: string; role: Role; organisation: string }>(
    db,
    sql`select i.email, i.role, o.name as organisation from ${invitations} i join ${organisations} o on o.id = i.org_id
         where i.token_hash = ${tokenHash} and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()`,
  );
  return row ?? null;
}

/**
 * Accepts an invitation for a user whose address it names: the membership, the invitation marked
 * accepted, and (with `sessionToken`) the session switched to the organisation, in one statement.
 * Null when no open invitation with that token is for that user.
 */
export async function acceptInvitation(
  db: Database,
  input: { tokenHash: string; userId: string; sessionToken?: string | undefined },
  request: AuditRequest = NO_REQUEST,
): Promise<{ orgId: string; role: Role; linked: OpsEvent | null } | null> {
  const actor = sql`(select jsonb_build_object('type', 'user', 'id', u.id, 'name', u.name) from ${users} u where u.id = ${input.userId}::uuid)`;
  const [row] = await run<{ orgId: string; role: Role; linkEvent: OpsEvent | null }>(
    db,
    sql`with invitation as (
          update ${invitations} i set accepted_at = now(), accepted_by = u.id
            from ${users} u
           where u.id = ${input.userId}::uuid and i.token_hash = ${input.tokenHash} and i.email = u.email
             and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()
          returning i.org_id, i.role, u.id as user_id
        ),
        joined as (
          insert into ${memberships} (org_id, user_id, role) select org_id, user_id, role from invitation
          on conflict (org_id, user_id) do nothing
          returning org_id
        ),
        -- The member is the organisation's person with their address (linked, when no member is yet),
        -- or a new one (personnel-links.ts), under the organisation's write lock as every record write.
        link_lock as (select ${orgWriteLock(sql`j.org_id`)} as locked from joined j),
        linked_person as (
          update ${personnel} p set user_id = u.id, version = p.version + 1, updated_at = now()
            from joined j cross join link_lock cross join ${users} u
           where u.id = ${input.userId}::uuid and p.org_id = j.org_id and lower(p.email) = lower(u.email) and p.user_id is null
          returning p.*, 'updated'::text as event_type,
                    jsonb_build_object('userId', jsonb_build_object('from', null, 'to', u.id::text)) as event_changes
        ),
        new_person as (
          insert into ${personnel} (id, org_id, name, email, user_id)
          select ${uuidv7()}::uuid, j.org_id, coalesce(nullif(left(btrim(u.name), 200), ''), u.email), u.email, u.id
            from joined j cross join link_lock cross join ${users} u
           where u.id = ${input.userId}::uuid
             and not exists (select 1 from ${personnel} p where p.org_id = j.org_id and lower(p.email) = lower(u.email))
          returning *, 'created'::text as event_type, null::jsonb as event_changes
        ),
        person_linked as (select * from linked_person union all select * from new_person),
        ${linkEventCtes("person_linked", actor)},
        switched as (
          update ${sessions} s set active_org_id = (select org_id from invitation)
           where s.token = ${input.sessionToken ?? ""} and s.user_id = ${input.userId}::uuid and exists (select 1 from invitation)
          returning 1
        ),
        ${auditCtes(
          {
            action: "member.joined",
            actor,
            source: sql`select j.org_id, ${auditTarget("member", sql`u.id`, sql`u.name`)} as target,
                               jsonb_build_object('role', jsonb_build_object('from', null, 'to', i.role)) as changes
                          from joined j join invitation i on i.org_id = j.org_id join ${users} u on u.id = i.user_id`,
          },
          request,
        )}
        select org_id as "orgId", role, (select count(*) from joined) as joined, (select count(*) from switched) as switched, ${linkEventColumn}
          from invitation`,
  );
  return row ? { orgId: row.orgId, role: row.role, linked: row.linkEvent && parseEvent(row.linkEvent) } : null;
}
