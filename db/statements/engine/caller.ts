import type { SQL } from "drizzle-orm";
import type { Actor, AppActor } from "../../../domain/actor.ts";
import { ROLE_SCOPES, type Role } from "../../../domain/roles.ts";
import { ALL_SCOPES, type Scope } from "../../../domain/scopes.ts";
import {
  apiKeys,
  applications,
  installations,
  memberships,
  oauthGrants,
  oauthTokens,
  organisations,
  sessions,
  users,
} from "../../schema/index.ts";
import { mcpSessionCtes } from "./mcp-sessions.ts";
import { sql } from "./sql-tag.ts";

// Every statement starts by finding its caller, so the key check costs no round trip of its own.
// The CTEs it adds, which the rest of the statement (and any fragment handed to a builder) may use:
//
//   key    the caller, if it is valid: its key's id (null for a person), org_id, application (the
//          key's name, the person's or the OAuth application's), scopes, user_id, role and session_id
//          (a person's), actor (as events carry it), credential_id (the key's or the application's
//          grant's id, or a person's in the organisation they act for: whose Idempotency-Keys these
//          are; personCredential), installation_id (an application's) and unverified (a person, or
//          an application acting for one, whose address is unconfirmed where the organisation
//          requires it confirmed: unconfirmedIn)
//   auth   the caller's organisation (org_id), only if the caller holds what the call needs and is
//          not `unverified` (unless the call is one such a person may still make: `anyAddress`)
//   touch  keeps api_keys.last_used_at (installations.last_used_at) fresh, at most once a minute
//
// CALLER_ORG names the caller's organisation anywhere in the statement: the tenant filter.

export const CALLER_ORG = sql`(select org_id from auth)`;

/**
 * What the caller must hold: a scope (null: any valid caller), or, for the settings area, one of
 * the roles that manage it (a person only; no key holds a role).
 */
export type Need = Scope | null | { roles: readonly Role[] };

/**
 * `writes`: the statement changes the organisation's data, so `auth` first takes the
 * organisation's write lock (ORG_WRITE_LOCK), before the statement locks any record: all writes of
 * an organisation queue on it in one order, so a batch (which holds it from its first statement to
 * its commit) and single writes never deadlock over records.
 *
 * A call through the MCP server (actor.mcp) also records the MCP session's day (mcp-sessions.ts),
 * unless the statement appends an audit entry of its own (`audited`: one append per statement);
 * the next MCP call then records it.
 */
export function callerCtes(actor: Actor, need: Need, options: CallerOptions = {}): SQL {
  const mcp = "mcp" in actor && actor.mcp && !options.audited ? sql`, ${mcpSessionCtes(actor.mcp)}` : sql``;
  return sql`${keyCte(actor)}, ${authCte(need, options.writes ?? false, options.anyAddress ?? false)}${mcp}`;
}

/**
 * `anyAddress`: a call a person whose address is unconfirmed may make even where the organisation
 * requires it confirmed (who they are, and acting for another organisation); every other call of
 * theirs there finds no `auth` (403 email_unverified).
 */
export interface CallerOptions {
  writes?: boolean;
  audited?: boolean;
  anyAddress?: boolean;
}

/**
 * Whether the person `user` (a users row alias) may not reach the organisation `orgId` yet: it
 * requires a confirmed address (organisations.require_verified_email) and theirs is not. False for
 * no person (an API key, an application acting as itself).
 */
export const unconfirmedIn = (orgId: SQL, user: SQL) =>
  sql`coalesce((select o.require_verified_email from ${organisations} o where o.id = ${orgId}) and not ${user}.email_verified, false)`;

/**
 * Whose Idempotency-Keys a person's writes (the console's) are: the person in the organisation they
 * act for, as one uuid (idempotency_keys.key_id holds a key's or a grant's id otherwise), so a
 * double click or a retry from any of their sessions replays, and the same person acting for
 * another organisation has keys of their own there.
 */
export const personCredential = (userId: SQL, orgId: SQL) => sql`md5('person ' || ${userId}::text || ' ' || ${orgId}::text)::uuid`;

/** `key`: the caller as a row (id, org_id, application, scopes, user_id, role, actor), or no row. */
function keyCte(actor: Actor): SQL {
  if ("keyHash" in actor) {
    // touch skips a key row another statement is touching (SKIP LOCKED): that one has it covered,
    // and no statement ever waits on the key's row. (A write holds the organisation's row from its
    // start; waiting here for a key row held by a write waiting for that row would deadlock.)
    return sql`key as (
          select k.id, k.org_id, k.application, k.scopes, null::uuid as user_id, null::text as role, null::uuid as session_id,
                 jsonb_build_object('type', 'key', 'id', k.id, 'name', k.application) as actor, k.id as credential_id, null::uuid as installation_id,
                 false as unverified
            from ${apiKeys} k
           where k.key_hash = ${actor.keyHash} and k.revoked_at is null
        ),
        touch as (
          update ${apiKeys} set last_used_at = now()
           where id = (select t.id from ${apiKeys} t
                        where t.key_hash = ${actor.keyHash} and t.revoked_at is null
                          and (t.last_used_at is null or t.last_used_at < now() - interval '1 minute')
                          for update skip locked)
          returning 1
        )`;
  }
  if ("sessionToken" in actor) {
    return sql`key as (
          select null::uuid as id, m.org_id, u.name as application, ${roleScopes} as scopes,
                 u.id as user_id, m.role, s.id as session_id,
                 jsonb_build_object('type', 'user', 'id', u.id, 'name', u.name) as actor,
                 ${personCredential(sql`u.id`, sql`m.org_id`)} as credential_id, null::uuid as installation_id,
                 ${unconfirmedIn(sql`m.org_id`, sql`u`)} as unverified
            from ${sessions} s
            join ${users} u on u.id = s.user_id
            join ${memberships} m on ${sessionMembership}
           where s.token = ${actor.sessionToken} and s.expires_at > now()
        )`;
  }
  if ("accessTokenHash" in actor) return appKeyCte(actor);
  return sql`key as (
          select null::uuid as id, o.id as org_id, 'opsroom'::text as application, ${sql.param(ALL_SCOPES)}::text[] as scopes,
                 null::uuid as user_id, 'owner'::text as role, null::uuid as session_id, null::jsonb as actor,
                 null::uuid as credential_id, null::uuid as installation_id, false as unverified
            from ${organisations} o where o.id = ${actor.orgId}
        )`;
}

/**
 * An OAuth application's access token (docs/apps.md): live, for this transport's resource, of a
 * grant not revoked, of an installation not uninstalled, of an application not deleted; and when it
 * acts for a person, that person still a member. It holds what its grant holds, within what the
 * installation and the application allow now and, for a person, what their role holds now.
 */
function appKeyCte(actor: AppActor): SQL {
  const resource = actor.unboundAccepted
    ? sql`(g.resource is null or g.resource = ${actor.resource})`
    : sql`g.resource = ${actor.resource}`;
  return sql`key as (
          select null::uuid as id, i.org_id, a.name as application, ${appScopes("t")} as scopes,
                 null::uuid as user_id, null::text as role, null::uuid as session_id,
                 ${appActorJson(sql`a`, sql`u`)} as actor,
                 g.id as credential_id, i.id as installation_id, ${unconfirmedIn(sql`i.org_id`, sql`u`)} as unverified
            from ${oauthTokens} t
            join ${liveGrantJoins}
           where t.token_hash = ${actor.accessTokenHash} and t.kind = 'access' and t.expires_at > now() and t.revoked_at is null
             and ${liveGrant} and ${resource}
        ),
        touch as (
          update ${installations} set last_used_at = now()
           where id = (select x.id from ${installations} x
                        where x.id = (select installation_id from key)
                          and (x.last_used_at is null or x.last_used_at < now() - interval '1 minute')
                          for update skip locked)
          returning 1
        )`;
}

/** An application `a` as an actor, acting for the person `u` (null: as itself), as events and the audit log name it. */
export const appActorJson = (a: SQL, u: SQL) =>
  sql`jsonb_build_object('type', 'app', 'id', ${a}.id, 'name', ${a}.name)
        || case when ${u}.id is null then '{}'::jsonb
           else jsonb_build_object('onBehalfOf', jsonb_build_object('type', 'user', 'id', ${u}.id, 'name', ${u}.name)) end`;

/**
 * For a session `s`: its membership `m`, in the organisation it acts for (the one chosen, else the
 * person's first), and `roleScopes`, the scopes of that membership's role.
 */
export const sessionMembership = sql`m.user_id = s.user_id
  and m.org_id = coalesce(s.active_org_id, (select f.org_id from ${memberships} f where f.user_id = s.user_id order by f.created_at, f.org_id limit 1))`;
const scopesOf = (role: Role) => sql`${sql.param(ROLE_SCOPES[role])}::text[]`;
/** The scopes of the role in `alias`.role; null when it holds none (no membership). */
export const roleScopesOf = (alias: string) =>
  sql`case ${sql.raw(alias)}.role when 'owner' then ${scopesOf("owner")} when 'admin' then ${scopesOf("admin")} when 'member' then ${scopesOf("member")} end`;
export const roleScopes = roleScopesOf("m");

/**
 * The rule every grant of an application lives by (docs/apps.md "Whose authority an installation
 * rests on"): an installation `i` rests on the person who installed it, and lives only while they
 * are a member of its organisation whose role holds every scope it holds. `im` is their membership
 * (installerJoin). A member removed, leaving or given a role that holds less ends it in the
 * statement that changes the membership (members.ts); this check refuses its tokens whatever path
 * ended the installer's authority.
 */
export const installerJoin = sql`left join ${memberships} im on im.user_id = i.installed_by_user_id and im.org_id = i.org_id`;
export const installerHolds = sql`coalesce(i.scopes <@ ${roleScopesOf("im")}, false)`;

/**
 * An application's grant `g` (joined to after `join`, on `t.grant_id`) with its installation `i`,
 * application `a`, person `u` and that person's membership `m` in the installation's organisation.
 */
export const liveGrantJoins = sql`${oauthGrants} g on g.id = t.grant_id
            join ${installations} i on i.id = g.installation_id
            join ${applications} a on a.id = i.application_id
            left join ${users} u on u.id = g.user_id
            left join ${memberships} m on m.user_id = g.user_id and m.org_id = i.org_id
            ${installerJoin}`;

/**
 * `g` may still be used: not revoked, its installation not ended and its installer's authority
 * whole, its application not deleted and, when it acts for a person, that person still a member.
 */
export const liveGrant = sql`g.revoked_at is null and i.uninstalled_at is null and a.deleted_at is null and ${installerHolds}
             and (g.user_id is null or m.user_id is not null)`;

/**
 * What a live grant holds now: its scopes, within the installation's, the application's and (for a
 * person) their role's; and, given the token's alias, within what the token holds when a refresh
 * narrowed it (oauth_tokens.scopes).
 */
export const appScopes = (token?: string) => sql`array(select c.s from unnest(${sql.param(ALL_SCOPES)}::text[]) with ordinality as c(s, n)
                        where c.s = any(g.scopes) and c.s = any(i.scopes) and c.s = any(a.scopes)
                          and (m.role is null or c.s = any(${roleScopes}))${token ? sql.raw(` and (${token}.scopes is null or c.s = any(${token}.scopes))`) : sql``}
                        order by c.n)`;

/** `auth`: the caller's organisation, only if the caller holds what the call needs (locked, for a write). */
function authCte(need: Need, writes: boolean, anyAddress: boolean): SQL {
  const needed =
    need === null ? sql`true` : typeof need === "string" ? sql`${need} = any(scopes)` : sql`role = any(${sql.param(need.roles)}::text[])`;
  const holds = anyAddress ? needed : sql`${needed} and not unverified`;
  if (!writes) return sql`auth as (select org_id from key where ${holds})`;
  return sql`auth as (select k.org_id from key k cross join lateral (select ${orgWriteLock(sql`k.org_id`)}) w where ${holds})`;
}

/**
 * The organisation's write lock: a transaction-scoped advisory lock on its id (re-entrant, released
 * at commit). Not a lock on the organisation's row: the rows of an organisation's records hold
 * FOR KEY SHARE locks on it (their foreign keys), and taking the row first, then updating it (the
 * changeVersion bump) could wait on those and deadlock with another writer.
 */
export const orgWriteLock = (orgId: SQL) => sql`pg_advisory_xact_lock(${ORG_LOCK_SPACE}::int, hashtext(${orgId}::text))`;
const ORG_LOCK_SPACE = 0x6f707300; // "ops\0": the advisory lock space of organisations' writes

/**
 * A statement that only takes the caller's organisation's write lock (when the caller is valid):
 * the first of a write that must see every write before it (WriteStatement.lockFirst).
 */
export const orgLockStatement = (actor: Actor) => sql`with ${callerCtes(actor, null, { writes: true })} select count(*) from auth`;

/**
 * Columns every statement answers with, so the service can tell 401 from 403 from the rest. The
 * scopes come as JSON, which the Worker reads with JSON.parse: as a text[] the driver's array
 * parser read them, building its parser's functions anew for every value.
 */
export const callerColumns = sql`exists (select 1 from key) as "keyFound", exists (select 1 from auth) as allowed,
  (select to_json(scopes) from key) as "keyScopes", coalesce((select unverified from key), false) as "emailUnverified",
  (select o.change_version from ${organisations} o where o.id = (select org_id from auth)) as "orgChangeVersion"`;

export interface CallerRow {
  keyFound: boolean;
  allowed: boolean;
  keyScopes: Scope[] | null;
  emailUnverified: boolean;
  /** bigint: a string from the driver. */
  orgChangeVersion: string | number | null;
}

/** What a statement found about its caller. */
export interface CallerOutcome {
  /** The key exists and is not revoked (for a system caller: the organisation exists). */
  found: boolean;
  /** It holds the scope the call needs. */
  allowed: boolean;
  /** The scopes it holds. */
  scopes: Scope[];
  /** A person (or an application for one) whose address is unconfirmed where the organisation requires it confirmed. */
  emailUnverified: boolean;
  /**
   * The organisation's changeVersion as this statement saw it (before its own write): what a read
   * answered is exactly the state after that many changes. 0 for a caller that was refused.
   */
  changeVersion: number;
}

export const callerOf = (row: CallerRow): CallerOutcome => ({
  found: row.keyFound,
  allowed: row.allowed,
  scopes: row.keyScopes ?? [],
  emailUnverified: row.emailUnverified,
  changeVersion: Number(row.orgChangeVersion ?? 0),
});
