import type { AuditRequest } from "../../domain/audit.ts";
import type { Role } from "../../domain/roles.ts";
import type { Database } from "../client.ts";
import { accounts, memberships, organisations, users } from "../schema/index.ts";
import { auditCtes, auditTarget } from "./engine/audit.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// Users: the people who sign in (better-auth's users and their password credentials), as sign-up
// and `opsroom user create` make them, and the organisation a sign-up without invitation owns.

/** A users row `u` as an audit entry's actor or target. */
export const personActor = sql`jsonb_build_object('type', 'user', 'id', u.id, 'name', u.name)`;

/**
 * A new organisation with `userId` as its owner: what sign-up makes when no invitation is used,
 * with the sign-up as its audit log's first entry.
 */
export async function createOrganisationWithOwner(
  db: Database,
  input: { orgId: string; name: string; userId: string },
  request: AuditRequest,
): Promise<void> {
  await run(
    db,
    sql`with organisation as (insert into ${organisations} (id, name) values (${input.orgId}::uuid, ${input.name}) returning id),
        joined as (insert into ${memberships} (org_id, user_id, role) select id, ${input.userId}::uuid, 'owner' from organisation returning org_id, user_id),
        ${auditCtes(
          {
            action: "user.signed_up",
            actor: sql`(select ${personActor} from ${users} u where u.id = ${input.userId}::uuid)`,
            source: sql`select j.org_id, ${auditTarget("user", sql`u.id`, sql`u.name`)} as target,
                               jsonb_build_object('organisation', jsonb_build_object('from', null, 'to', ${input.name}::text)) as changes
                          from joined j join ${users} u on u.id = j.user_id`,
          },
          request,
        )}
        select count(*) from joined`,
  );
}

/** The password hash of the credential of the user with this address, or null. */
export async function passwordHashOf(db: Database, email: string): Promise<string | null> {
  const [row] = await run<{ password: string | null }>(
    db,
    sql`select a.password from ${accounts} a join ${users} u on u.id = a.user_id where u.email = ${email} and a.provider_id = 'credential'`,
  );
  return row?.password ?? null;
}

/** A user and their password credential, and a membership: `opsroom user create`. */
export async function insertUser(
  db: Database,
  input: { userId: string; accountId: string; orgId: string; name: string; email: string; passwordHash: string; role: Role },
): Promise<{ orgFound: boolean; created: boolean }> {
  const row = await runOne<{ orgFound: boolean; created: boolean }>(
    db,
    sql`with org as (select id from ${organisations} where id = ${input.orgId}::uuid),
        person as (
          insert into ${users} (id, name, email, email_verified) select ${input.userId}::uuid, ${input.name}, ${input.email}, false from org
          on conflict (email) do nothing
          returning id
        ),
        credential as (
          insert into ${accounts} (id, account_id, provider_id, user_id, password)
          select ${input.accountId}::uuid, id::text, 'credential', id, ${input.passwordHash} from person
          returning 1
        ),
        joined as (insert into ${memberships} (org_id, user_id, role) select org.id, person.id, ${input.role} from org, person returning 1)
        select exists (select 1 from org) as "orgFound", exists (select 1 from person) as created, (select count(*) from credential) as credentials, (select count(*) from joined) as joined`,
  );
  return { orgFound: row.orgFound, created: row.created };
}
