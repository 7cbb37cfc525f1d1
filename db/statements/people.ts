import { sql } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { SETTINGS_ROLES, type Role } from "../../domain/roles.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { CALLER_ORG, roleScopes, sessionMembership } from "./caller.ts";
import { iso, MANAGE_SETTINGS, withCaller, type SettingsOutcome } from "./settings-caller.ts";
import { run, runOne } from "./sql.ts";

// People and the settings area: memberships, invitations and sessions (db/statements/settings-caller.ts
// says how each checks its caller; the keys people create are in api-keys.ts).


export interface Member {
  userId: string;
  name: string;
  email: string;
  role: Role;
  joinedAt: string;
}

const memberJson = sql`json_build_object('userId', u.id, 'name', u.name, 'email', u.email, 'role', m.role, 'joinedAt', ${iso("m.created_at")})`;

export interface Invitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: { id: string; name: string } | null;
  createdAt: string;
  expiresAt: string;
}

const invitationJson = sql.raw(`json_build_object('id', i.id, 'email', i.email, 'role', i.role,
  'invitedBy', (select json_build_object('id', iu.id, 'name', iu.name) from users iu where iu.id = i.invited_by),
  'createdAt', to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'expiresAt', to_char(i.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`);

// ---------------------------------------------------------------------------------------------
// Who is signed in

export interface Me {
  user: { id: string; name: string; email: string };
  organisation: { id: string; name: string };
  role: Role;
  scopes: Scope[];
  organisations: Array<{ id: string; name: string; role: Role }>;
}

export async function describeSession(db: Database, actor: Actor): Promise<SettingsOutcome<{ me: Me | null }>> {
  const { caller, role, userId, row } = await withCaller<{ me: Me | null }>(
    db,
    actor,
    null,
    null,
    sql`(select json_build_object(
            'user', json_build_object('id', u.id, 'name', u.name, 'email', u.email),
            'organisation', json_build_object('id', o.id, 'name', o.name),
            'role', k.role, 'scopes', k.scopes,
            'organisations', (select json_agg(json_build_object('id', mo.id, 'name', mo.name, 'role', mm.role) order by mm.created_at, mo.id)
                                from memberships mm join organisations mo on mo.id = mm.org_id where mm.user_id = u.id))
          from key k join users u on u.id = k.user_id join organisations o on o.id = k.org_id) as me`,
  );
  return { caller, role, userId, me: row.me };
}

// ---------------------------------------------------------------------------------------------
// Members

export async function listMembers(db: Database, actor: Actor): Promise<SettingsOutcome<{ members: Member[] }>> {
  const { caller, role, userId, row } = await withCaller<{ members: Member[] | null }>(
    db,
    actor,
    null,
    null,
    sql`(select json_agg(${memberJson} order by m.created_at, u.id)
           from memberships m join users u on u.id = m.user_id where m.org_id = ${CALLER_ORG}) as members`,
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
}

/**
 * Changes a member's role (`role`) or removes them (`role` null). Owners and admins may; a person
 * may also remove themselves (leave). The owners are row-locked while counted, so two owners
 * leaving at once cannot leave the organisation with none.
 */
export async function changeMember(db: Database, actor: Actor, targetUserId: string, role: Role | null): Promise<SettingsOutcome<MemberChange>> {
  const leaving = role === null;
  const write =
    role === null
      ? sql`delete from memberships m where m.org_id = ${CALLER_ORG} and m.user_id = ${targetUserId}::uuid and (select ok from checks) returning m.*`
      : sql`update memberships m set role = ${role}, updated_at = now()
             where m.org_id = ${CALLER_ORG} and m.user_id = ${targetUserId}::uuid and (select ok from checks) returning m.*`;
  // The target's and the owners' rows are locked in one scan, in user_id order: two changes at
  // once (two owners demoting each other) then wait for each other instead of deadlocking.
  const ctes = sql`locked as (
        select m.user_id, m.role from memberships m
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
      ended as (
        -- a member who leaves or is removed stops acting for the organisation at once
        update sessions s set active_org_id = null
         where ${leaving} and s.user_id = ${targetUserId}::uuid and s.active_org_id = ${CALLER_ORG} and exists (select 1 from changed)
        returning 1
      )`;
  const { caller, role: callerRole, userId, row } = await withCaller<{ found: boolean; permitted: boolean | null; keeps_owner: boolean | null; member: Member | null; org_id: string | null }>(
    db,
    actor,
    null,
    ctes,
    sql`exists (select 1 from target) as found, (select permitted from rules) as permitted, (select keeps_owner from rules) as keeps_owner,
        (select ${memberJson} from changed m join users u on u.id = m.user_id) as member,
        (select count(*) from ended) as sessions_ended, ${CALLER_ORG} as org_id`,
  );
  return { caller, role: callerRole, userId, found: row.found, permitted: row.permitted === true, keepsOwner: row.keeps_owner !== false, member: row.member, orgId: row.org_id };
}

// ---------------------------------------------------------------------------------------------
// Invitations

export async function listInvitations(db: Database, actor: Actor): Promise<SettingsOutcome<{ invitations: Invitation[] }>> {
  const { caller, role, userId, row } = await withCaller<{ invitations: Invitation[] | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select json_agg(${invitationJson} order by i.created_at, i.id) from invitations i
          where i.org_id = ${CALLER_ORG} and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()) as invitations`,
  );
  return { caller, role, userId, invitations: row.invitations ?? [] };
}

export interface NewInvitation {
  id: string;
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
): Promise<SettingsOutcome<{ permitted: boolean; alreadyMember: boolean; invitation: Invitation | null }>> {
  const ctes = sql`rules as (
        select ((select role from key) = 'owner' or ${invitation.role} <> 'owner') as permitted,
               exists (select 1 from memberships m join users u on u.id = m.user_id where m.org_id = ${CALLER_ORG} and u.email = ${invitation.email}) as already_member
      ),
      inserted as (
        insert into invitations (id, org_id, email, role, token_hash, invited_by, expires_at)
        select ${invitation.id}::uuid, ${CALLER_ORG}, ${invitation.email}, ${invitation.role}, ${invitation.tokenHash}, (select user_id from key),
               now() + make_interval(days => ${invitation.expiresInDays})
          from rules r where exists (select 1 from auth) and r.permitted and not r.already_member
        returning *
      )`;
  const { caller, role, userId, row } = await withCaller<{ permitted: boolean | null; already_member: boolean | null; invitation: Invitation | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    ctes,
    sql`(select permitted from rules) as permitted, (select already_member from rules) as already_member,
        (select ${invitationJson} from inserted i) as invitation`,
  );
  return { caller, role, userId, permitted: row.permitted === true, alreadyMember: row.already_member === true, invitation: row.invitation };
}

export async function revokeInvitation(db: Database, actor: Actor, invitationId: string): Promise<SettingsOutcome<{ revoked: boolean }>> {
  const { caller, role, userId, row } = await withCaller<{ revoked: boolean }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`revoked as (
          update invitations i set revoked_at = now()
           where i.org_id = ${CALLER_ORG} and i.id = ${invitationId}::uuid and i.accepted_at is null and i.revoked_at is null
          returning 1
        )`,
    sql`exists (select 1 from revoked) as revoked`,
  );
  return { caller, role, userId, revoked: row.revoked };
}

/** An open invitation by its token's hash (the invitation page shows whom it is for). */
export async function findOpenInvitation(db: Database, tokenHash: string): Promise<{ email: string; role: Role; organisation: string } | null> {
  const [row] = await run<{ email: string; role: Role; organisation: string }>(
    db,
    sql`select i.email, i.role, o.name as organisation from invitations i join organisations o on o.id = i.org_id
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
): Promise<{ orgId: string; role: Role } | null> {
  const [row] = await run<{ org_id: string; role: Role }>(
    db,
    sql`with invitation as (
          update invitations i set accepted_at = now(), accepted_by = u.id
            from users u
           where u.id = ${input.userId}::uuid and i.token_hash = ${input.tokenHash} and i.email = u.email
             and i.accepted_at is null and i.revoked_at is null and i.expires_at > now()
          returning i.org_id, i.role, u.id as user_id
        ),
        joined as (
          insert into memberships (org_id, user_id, role) select org_id, user_id, role from invitation
          on conflict (org_id, user_id) do nothing
          returning org_id
        ),
        switched as (
          update sessions s set active_org_id = (select org_id from invitation)
           where s.token = ${input.sessionToken ?? ""} and s.user_id = ${input.userId}::uuid and exists (select 1 from invitation)
          returning 1
        )
        select org_id, role, (select count(*) from joined) as joined, (select count(*) from switched) as switched from invitation`,
  );
  return row ? { orgId: row.org_id, role: row.role } : null;
}

// ---------------------------------------------------------------------------------------------
// Sign-up and sign-in (better-auth's hooks)

/** A new organisation with `userId` as its owner: what sign-up makes when no invitation is used. */
export async function createOrganisationWithOwner(db: Database, input: { orgId: string; name: string; userId: string }): Promise<void> {
  await run(
    db,
    sql`with organisation as (insert into organisations (id, name) values (${input.orgId}::uuid, ${input.name}) returning id)
        insert into memberships (org_id, user_id, role) select id, ${input.userId}::uuid, 'owner' from organisation`,
  );
}

/** The organisations a person belongs to (a session that ends is told to each of their rooms). */
export async function organisationsOf(db: Database, userId: string): Promise<string[]> {
  const rows = await run<{ org_id: string }>(db, sql`select org_id from memberships where user_id = ${userId}::uuid order by org_id`);
  return rows.map((row) => row.org_id);
}

/** A session that is still signed in, with the organisation it acts for and its role's scopes; or null. */
export async function findLiveSession(db: Database, sessionId: string): Promise<{ orgId: string; userId: string; scopes: Scope[] } | null> {
  const [row] = await run<{ orgId: string; userId: string; scopes: Scope[] }>(
    db,
    sql`select m.org_id as "orgId", m.user_id as "userId", ${roleScopes} as scopes
          from sessions s join memberships m on ${sessionMembership}
         where s.id = ${sessionId}::uuid and s.expires_at > now()`,
  );
  return row ?? null;
}

/** The person a live session is, and the organisation it acts for (their requests are counted per both), or null. */
export async function sessionHolder(db: Database, sessionToken: string): Promise<{ userId: string; orgId: string } | null> {
  const [row] = await run<{ userId: string; orgId: string }>(
    db,
    sql`select s.user_id as "userId", m.org_id as "orgId"
          from sessions s join memberships m on ${sessionMembership}
         where s.token = ${sessionToken} and s.expires_at > now()`,
  );
  return row ?? null;
}

/** Switches a session to another organisation of its user; false when the user is no member there. */
export async function switchOrganisation(db: Database, input: { sessionToken: string; orgId: string }): Promise<boolean> {
  const rows = await run(
    db,
    sql`update sessions s set active_org_id = m.org_id, updated_at = now()
          from memberships m
         where s.token = ${input.sessionToken} and s.expires_at > now() and m.user_id = s.user_id and m.org_id = ${input.orgId}::uuid
        returning 1`,
  );
  return rows.length === 1;
}

/** The password hash of the credential of the user with this address, or null. */
export async function passwordHashOf(db: Database, email: string): Promise<string | null> {
  const [row] = await run<{ password: string | null }>(
    db,
    sql`select a.password from accounts a join users u on u.id = a.user_id where u.email = ${email} and a.provider_id = 'credential'`,
  );
  return row?.password ?? null;
}

/** A user and their password credential, and a membership: `opsroom user create`. */
export async function insertUser(
  db: Database,
  input: { userId: string; accountId: string; orgId: string; name: string; email: string; passwordHash: string; role: Role },
): Promise<{ orgFound: boolean; created: boolean }> {
  const row = await runOne<{ org_found: boolean; created: boolean }>(
    db,
    sql`with org as (select id from organisations where id = ${input.orgId}::uuid),
        person as (
          insert into users (id, name, email, email_verified) select ${input.userId}::uuid, ${input.name}, ${input.email}, false from org
          on conflict (email) do nothing
          returning id
        ),
        credential as (
          insert into accounts (id, account_id, provider_id, user_id, password)
          select ${input.accountId}::uuid, id::text, 'credential', id, ${input.passwordHash} from person
          returning 1
        ),
        joined as (insert into memberships (org_id, user_id, role) select org.id, person.id, ${input.role} from org, person returning 1)
        select exists (select 1 from org) as org_found, exists (select 1 from person) as created, (select count(*) from credential) as credentials, (select count(*) from joined) as joined`,
  );
  return { orgFound: row.org_found, created: row.created };
}
