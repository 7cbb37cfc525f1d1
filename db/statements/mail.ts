import type { SQL } from "drizzle-orm";
import { NO_REQUEST } from "../../domain/audit.ts";
import { uuidv7 } from "../../domain/ids.ts";
import { MAIL_LEASE_SECONDS, SECURITY_MAIL_KINDS, type MailKind, type OutgoingMail } from "../../domain/mail.ts";
import type { Database } from "../client.ts";
import { mailOutbox, memberships } from "../schema/index.ts";
import { auditCtes, auditTarget, SYSTEM_ACTOR_JSON } from "./engine/audit.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// The mail outbox (docs/mail.md). A message is inserted by the statement that caused it (queueMail:
// a select to put in that statement, or enqueueMail alone after a write better-auth made), claimed
// by one sender at a time (a lease), and marked sent, or refused and queued again after a backoff,
// or failed once it is given up.

/** A message's row values, as a select over `from` (a CTE of the statement, or none). */
export function queueMail(mail: OutgoingMail, who: { orgId: SQL; userId: SQL }, from: SQL | null = null): SQL {
  return sql`insert into ${mailOutbox} (id, org_id, user_id, kind, to_address, subject, text_body, html_body, headers)
    select ${uuidv7()}::uuid, ${who.orgId}, ${who.userId}, ${mail.kind}::text, ${mail.to}::text, ${mail.subject}::text, ${mail.text}::text,
           ${mail.html}::text, ${JSON.stringify(mail.headers ?? {})}::jsonb${from ? sql` from ${from}` : sql``}`;
}

/** Queues one message by a statement of its own; answers its id. */
export async function enqueueMail(db: Database, mail: OutgoingMail, who: { orgId?: string | null; userId?: string | null } = {}) {
  const [row] = await run<{ id: string }>(
    db,
    sql`${queueMail(mail, { orgId: sql`${who.orgId ?? null}::uuid`, userId: sql`${who.userId ?? null}::uuid` })} returning id`,
  );
  return row!.id;
}

export interface ClaimedMail {
  id: string;
  kind: MailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  attempts: number;
}

/**
 * Claims up to `limit` messages that are due (queued, their next attempt reached), oldest first, for
 * MAIL_LEASE_SECONDS; a message whose sender stopped mid-way (its lease ran out) is queued again
 * first. Two senders never claim the same message (FOR UPDATE SKIP LOCKED).
 */
export async function claimDueMail(db: Database, limit: number, only: string[] | null = null): Promise<ClaimedMail[]> {
  return run<ClaimedMail>(
    db,
    sql`with returned as (
          update ${mailOutbox} set status = 'queued', lease_until = null where status = 'sending' and lease_until < now() returning id
        ),
        due as (
          select id from ${mailOutbox}
           where (status = 'queued' and next_attempt_at <= now() or id in (select id from returned))
             ${only ? sql`and id = any(${sql.param(only)}::uuid[])` : sql``}
           order by next_attempt_at, id limit ${limit} for update skip locked
        )
        update ${mailOutbox} m set status = 'sending', attempts = m.attempts + 1,
               lease_until = now() + make_interval(secs => ${MAIL_LEASE_SECONDS})
          from due where m.id = due.id
        returning m.id, m.kind, m.to_address as "to", m.subject, m.text_body as "text", m.html_body as "html", m.headers, m.attempts`,
  );
}

/**
 * When the next message falls due (its backoff over, or its sender's lease run out), in ms since
 * the epoch; null when none waits. The sweep keeps this for the sweeps of an idle service
 * (functions/sweep-watch.ts), so none has to ask the database whether anything is due.
 */
export async function nextMailDue(db: Database): Promise<number | null> {
  const [row] = await run<{ due: string | null }>(
    db,
    sql`select (extract(epoch from min(case when status = 'queued' then next_attempt_at else lease_until end)) * 1000)::bigint as due
          from ${mailOutbox} where status in ('queued', 'sending')`,
  );
  return row?.due == null ? null : Number(row.due);
}

/** The message went: sent, never claimed again. */
export async function markMailSent(db: Database, id: string): Promise<void> {
  await run(
    db,
    sql`update ${mailOutbox} set status = 'sent', sent_at = now(), lease_until = null, last_error = null where id = ${id}::uuid`,
  );
}

/**
 * The transport refused the message (or could not be reached): queued again after `retrySeconds`,
 * or failed when `giveUp`. A security mail's refusal is recorded in the audit log of the organisation
 * it concerns (an account's own mail: the person's first organisation), in the same statement.
 */
export async function markMailRefused(
  db: Database,
  input: { id: string; error: string; retrySeconds: number; giveUp: boolean },
): Promise<void> {
  const refused = sql`refused as (
      update ${mailOutbox} set status = ${input.giveUp ? "failed" : "queued"}::text, lease_until = null, last_error = ${input.error.slice(0, 500)}::text,
             next_attempt_at = now() + make_interval(secs => ${input.retrySeconds})
       where id = ${input.id}::uuid and status = 'sending'
      returning id, org_id, user_id, kind, to_address, attempts, status
    )`;
  const audit = auditCtes(
    {
      action: "mail.failed",
      actor: SYSTEM_ACTOR_JSON,
      source: sql`select coalesce(r.org_id, (select f.org_id from ${memberships} f where f.user_id = r.user_id order by f.created_at, f.org_id limit 1)) as org_id,
                         ${auditTarget("mail", sql`r.id`, sql`r.to_address`)} as target,
                         jsonb_build_object('status', jsonb_build_object('from', 'sending', 'to', r.status),
                           'attempts', jsonb_build_object('from', r.attempts - 1, 'to', r.attempts),
                           'error', jsonb_build_object('from', null, 'to', ${input.error.slice(0, 200)}::text)) as changes
                    from refused r
                   where r.kind = any(${sql.param([...SECURITY_MAIL_KINDS])}::text[])
                     and coalesce(r.org_id, (select f.org_id from ${memberships} f where f.user_id = r.user_id limit 1)) is not null`,
    },
    NO_REQUEST,
  );
  await run(db, sql`with ${refused}, ${audit} select (select count(*) from refused)::int as refused`);
}

/** A message's state, as GET /v1/... and the tests read it. */
export async function mailStatus(db: Database, id: string) {
  const [row] = await run<{ status: string; attempts: number; lastError: string | null }>(
    db,
    sql`select status, attempts, last_error as "lastError" from ${mailOutbox} where id = ${id}::uuid`,
  );
  return row ?? null;
}
