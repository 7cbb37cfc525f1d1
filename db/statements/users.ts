import { sql } from "drizzle-orm";
import type { Role } from "../../domain/roles.ts";
import type { Database } from "../client.ts";
import { run, runOne } from "./sql.ts";

// Users: the people who sign in (better-auth's users and their password credentials), as sign-up
// and `opsroom user create` make them, and the organisation a sign-up without invitation owns.

/** A new organisation with `userId` as its owner: what sign-up makes when no invitation is used. */
export async function createOrganisationWithOwner(db: Database, input: { orgId: string; name: string; userId: string }): Promise<void> {
  await run(
    db,
    sql`with organisation as (insert into organisations (id, name) values (${input.orgId}::uuid, ${input.name}) returning id)
        insert into memberships (org_id, user_id, role) select id, ${input.userId}::uuid, 'owner' from organisation`,
  );
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
