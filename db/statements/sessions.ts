import type { Actor } from "../../domain/actor.ts";
import type { Role } from "../../domain/roles.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { memberships, organisations, sessions, users } from "../schema/index.ts";
import { roleScopes, sessionMembership, unconfirmedIn } from "./engine/caller.ts";
import { withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// Sessions: who is signed in and which organisation they act for. better-auth makes and ends
// sessions (functions/auth/auth.ts); these statements read them and switch their organisation.

export interface Me {
  user: { id: string; name: string; email: string; emailVerified: boolean };
  organisation: { id: string; name: string; requireVerifiedEmail: boolean };
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
            'user', json_build_object('id', u.id, 'name', u.name, 'email', u.email, 'emailVerified', u.email_verified),
            'organisation', json_build_object('id', o.id, 'name', o.name, 'requireVerifiedEmail', o.require_verified_email),
            'role', k.role, 'scopes', k.scopes,
            'organisations', (select json_agg(json_build_object('id', mo.id, 'name', mo.name, 'role', mm.role) order by mm.created_at, mo.id)
                                from ${memberships} mm join ${organisations} mo on mo.id = mm.org_id where mm.user_id = u.id))
          from key k join ${users} u on u.id = k.user_id join ${organisations} o on o.id = k.org_id) as me`,
    { anyAddress: true },
  );
  return { caller, role, userId, me: row.me };
}

export interface LiveSession {
  orgId: string;
  userId: string;
  scopes: Scope[];
  emailUnverified: boolean;
}

/**
 * A session that is still signed in, with the organisation it acts for, its role's scopes and
 * whether its person's address is unconfirmed where that organisation requires it; or null.
 */
export async function findLiveSession(db: Database, sessionId: string): Promise<LiveSession | null> {
  const [row] = await run<LiveSession>(
    db,
    sql`select m.org_id as "orgId", m.user_id as "userId", ${roleScopes} as scopes, ${unconfirmedIn(sql`m.org_id`, sql`u`)} as "emailUnverified"
          from ${sessions} s join ${memberships} m on ${sessionMembership} join ${users} u on u.id = s.user_id
         where s.id = ${sessionId}::uuid and s.expires_at > now()`,
  );
  return row ?? null;
}

/** The person a live session is, and the organisation it acts for (their requests are counted per both), or null. */
export async function sessionHolder(db: Database, sessionToken: string): Promise<{ userId: string; orgId: string } | null> {
  const [row] = await run<{ userId: string; orgId: string }>(
    db,
    sql`select s.user_id as "userId", m.org_id as "orgId"
          from ${sessions} s join ${memberships} m on ${sessionMembership}
         where s.token = ${sessionToken} and s.expires_at > now()`,
  );
  return row ?? null;
}

/** Switches a session to another organisation of its user; false when the user is no member there. */
export async function switchOrganisation(db: Database, input: { sessionToken: string; orgId: string }): Promise<boolean> {
  const rows = await run(
    db,
    sql`update ${sessions} s set active_org_id = m.org_id, updated_at = now()
          from ${memberships} m
         where s.token = ${input.sessionToken} and s.expires_at > now() and m.user_id = s.user_id and m.org_id = ${input.orgId}::uuid
        returning 1`,
  );
  return rows.length === 1;
}
