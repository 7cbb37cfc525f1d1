import type { SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import { SETTINGS_ROLES, type Role } from "../../../domain/roles.ts";
import type { Database } from "../../client.ts";
import { users } from "../../schema/index.ts";
import { callerColumns, callerCtes, callerOf, type CallerOptions, type CallerOutcome, type CallerRow, type Need } from "./caller.ts";
import { sql } from "./sql-tag.ts";
import { runOne } from "./sql.ts";

// The settings area's statements (sessions, members, invitations, people's keys): each is one
// statement that finds its caller, a signed-in person by session token, and checks their role in
// the same statement as the work, as every /v1 call does. better-auth keeps users, sessions and
// credentials (functions/auth/auth.ts); these statements only read those.

/** What the settings area's writes need: a person whose role manages it (owner, admin). */
export const MANAGE_SETTINGS: Need = { roles: SETTINGS_ROLES };

/** A timestamp column as the API writes it (ISO 8601 UTC, milliseconds). */
export const iso = (column: string) => sql.raw(`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

/** The person a users.id column names, as the settings area answers one ({ id, name }), or null. */
export const personJson = (userId: string) =>
  sql`(select json_build_object('id', p.id, 'name', p.name) from ${users} p where p.id = ${sql.raw(userId)})`;

/** A settings statement's outcome: its caller, the caller's role and user id, and what it found. */
export type SettingsOutcome<T> = { caller: CallerOutcome; role: Role | null; userId: string | null } & T;

/**
 * Runs `ctes` after the caller's and answers the caller's outcome with `columns` (one row).
 * `writes`: the statement changes the organisation's records too (bumps its changeVersion), so it
 * takes the organisation's write lock first, as every record write does (caller.ts callerCtes);
 * `anyAddress`: a person whose address is unconfirmed may make it (caller.ts CallerOptions).
 */
export async function withCaller<Extra>(
  db: Database,
  actor: Actor,
  need: Need,
  ctes: SQL | null,
  columns: SQL,
  options: Pick<CallerOptions, "writes" | "anyAddress"> = {},
) {
  const row = await runOne<CallerRow & { callerRole: Role | null; callerUser: string | null } & Extra>(
    db,
    sql`with ${callerCtes(actor, need, options)}${ctes ? sql`, ${ctes}` : sql``}
        select ${callerColumns}, (select role from key) as "callerRole", (select user_id from key) as "callerUser", ${columns}`,
  );
  return { caller: callerOf(row), role: row.callerRole, userId: row.callerUser, row };
}
