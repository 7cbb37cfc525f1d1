import type { SQL } from "drizzle-orm";
import type { AuditRequest } from "../../domain/audit.ts";
import type { Database } from "../client.ts";
import { memberships, users } from "../schema/index.ts";
import { appendAuditEntry, auditChanges, auditTarget } from "./engine/audit.ts";
import { sql } from "./engine/sql-tag.ts";
import { personActor } from "./users.ts";

// Sign-ins and sign-outs in the audit log. better-auth writes the session itself, so these are
// the one exception to "the entry is written by the change's own statement": each is one
// statement of its own, run right after (a failed sign-in changes nothing, and is recorded
// however it ends). An entry goes to the organisation the session acts for (the one it chose,
// else the person's first); a person who belongs nowhere, or an address no one has, records none.

type SessionAction = "user.signed_in" | "user.signed_out" | "user.sign_in_failed" | "user.password_reset" | "user.email_changed";

/** The person `who` (a condition on users `u`) in the organisation `orgId` (else their first), as the entry's source. */
function recordFor(action: SessionAction, who: SQL, orgId: string | null, changes: SQL = sql`null::jsonb`) {
  return {
    action,
    actor: sql`(select ${personActor} from ${users} u where ${who})`,
    source: sql`select m.org_id, ${auditTarget("user", sql`u.id`, sql`u.name`)} as target, ${changes} as changes
                  from ${users} u join ${memberships} m on m.user_id = u.id
                 where ${who}
                   and m.org_id = coalesce(${orgId}::uuid, (select f.org_id from ${memberships} f where f.user_id = u.id order by f.created_at, f.org_id limit 1))`,
  };
}

/** A sign-in or a sign-out of the user `userId`, in the organisation its session acted for. */
export const recordSession = (
  db: Database,
  input: { action: "user.signed_in" | "user.signed_out"; userId: string; orgId: string | null },
  request: AuditRequest,
) => appendAuditEntry(db, recordFor(input.action, sql`u.id = ${input.userId}::uuid`, input.orgId), request);

/** A sign-in refused for the address `email`: recorded for the person who has it (never the password tried). */
export const recordSignInFailure = (db: Database, email: string, request: AuditRequest) =>
  appendAuditEntry(db, recordFor("user.sign_in_failed", sql`u.email = ${email.trim().toLowerCase()}`, null), request);

/** A password set anew through a reset link (every session of the person ended with it). */
export const recordPasswordReset = (db: Database, userId: string, request: AuditRequest) =>
  appendAuditEntry(db, recordFor("user.password_reset", sql`u.id = ${userId}::uuid`, null), request);

/** An address changed by following the link mailed to the new one: `email` from, to. */
export const recordEmailChange = (db: Database, input: { userId: string; from: string; to: string }, request: AuditRequest) =>
  appendAuditEntry(
    db,
    recordFor(
      "user.email_changed",
      sql`u.id = ${input.userId}::uuid`,
      null,
      auditChanges({ email: [sql`${input.from}::text`, sql`${input.to}::text`] }),
    ),
    request,
  );
