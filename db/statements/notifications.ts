import type { SQL } from "drizzle-orm";
import { DEFAULT_PREFERENCES, MENTION_PATTERN, NOTIFICATION_KINDS, type NotificationKind } from "../../domain/notifications.ts";
import { ROLE_SCOPES } from "../../domain/roles.ts";
import type { Database } from "../client.ts";
import {
  events,
  mailOutbox,
  memberships,
  notifications,
  notificationSettings,
  personnel,
  subscriptions,
  tasks,
  users,
} from "../schema/index.ts";
import { SQL_UUIDV7 } from "./engine/outbox.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";
import { notificationJson, type Notification } from "./notification-inbox.ts";

// Notifications derived from the events outbox (docs/notifications.md "How a change becomes
// notifications"). A write stays one statement: its event is the record of what happened. After
// the commit, one more statement (deriveNotifications) reads the write's events, marks them
// notified, follows the records for who acted on them, and inserts a notification per subscriber;
// the sweep runs the same statement over what a request did not finish. Marking the event and
// inserting its notifications are one statement, and (event, person) is unique: nothing is lost
// and nothing is made twice, whichever of the two runs it, or both at once.

/** A notification as the derivation answers it: with whom it is for and how their mail goes. */
export interface DerivedNotification {
  notification: Notification;
  orgId: string;
  userId: string;
  email: string;
  name: string;
  mailState: "pending" | "digest" | "none";
  shown: boolean;
}

const roleScopes = sql`case m.role
  ${sql.join(
    Object.entries(ROLE_SCOPES).map(([role, scopes]) => sql`when ${role}::text then ${sql.param([...scopes])}::text[]`),
    sql` `,
  )} end`;

/** The events to derive: those given (a request's), or the sweep's (older than `grace`, a page of them). */
export type EventsToDerive = { ids: string[] } | { graceSeconds: number; limit: number };

function marked(which: EventsToDerive): SQL {
  const chosen =
    "ids" in which
      ? sql`e.id = any(${sql.param(which.ids)}::uuid[])`
      : sql`e.id in (select x.id from ${events} x where x.notified_at is null and x.occurred_at < now() - make_interval(secs => ${which.graceSeconds})
                      order by x.occurred_at limit ${which.limit} for update skip locked)`;
  // Each event once: the second of two derivations of it waits for the first's row lock, then finds it marked.
  return sql`ev as (
      update ${events} e set notified_at = now() where ${chosen} and e.notified_at is null
      returning e.id, e.org_id, e.type, e.scope, e.data, e.changes, e.actor, e.change_version
    )`;
}

/** What an event is about (the followed record), and the person who made it, if one did. */
const subject = sql`subject as (
    select ev.*,
           case when ev.type like 'comment.%' then 'task' else split_part(ev.type, '.', 1) end as record_type,
           (case when ev.type like 'comment.%' then ev.data->>'taskId' else ev.data->>'id' end)::uuid as record_id,
           coalesce(case when ev.actor->>'type' = 'user' then ev.actor->>'id' end, ev.actor->'onBehalfOf'->>'id')::uuid as actor_user
      from ev
     where ev.type ~ '^(task|project|risk)\\.' or ev.type = 'comment.created'
  )`;

/**
 * Who the event concerns by what it says: the task's assignee (through their personnel record's
 * member), the people a comment mentions, and (kind null: they follow, but are the actor) the
 * creator and the commenter. rank: the most specific kind wins for one person.
 */
const directed = sql`directed as (
    select s.id as event_id, p.user_id, 'assigned'::text as kind, 'assignee'::text as reason, 1 as rank
      from subject s join ${personnel} p on p.org_id = s.org_id and p.id = (s.data->>'assigneeId')::uuid
     where p.user_id is not null and (s.type = 'task.created' or (s.type = 'task.updated' and s.changes ? 'assigneeId'))
    union all
    select s.id, lower(m.found[1])::uuid, 'mentioned', 'mentioned', 2
      from subject s cross join lateral regexp_matches(s.data->>'body', ${MENTION_PATTERN}::text, 'g') as m(found)
     where s.type = 'comment.created'
    union all
    select s.id, s.actor_user, null, case when s.type = 'comment.created' then 'commenter' else 'creator' end, 9
      from subject s where s.actor_user is not null and s.type in ('task.created', 'project.created', 'risk.created', 'comment.created')
  )`;

const recipients = sql`candidates as (
    select distinct on (c.event_id, c.user_id) c.event_id, c.user_id, c.kind
      from (select event_id, user_id, kind, rank from directed where kind is not null
            union all
            select s.id, f.user_id, case when s.type = 'comment.created' then 'commented' else 'changed' end, 5
              from subject s join ${subscriptions} f
                on f.org_id = s.org_id and f.record_type = s.record_type and f.record_id = s.record_id and f.following) c
     order by c.event_id, c.user_id, c.rank
  ),
  recipients as (
    select c.kind, c.user_id, s.id as event_id, s.org_id, s.type, s.data, s.changes, s.actor, s.change_version, s.record_type, s.record_id,
           u.email, u.name,
           coalesce(ns.preferences -> c.kind, ${JSON.stringify(DEFAULT_PREFERENCES)}::jsonb -> c.kind) as pref
      from candidates c
      join subject s on s.id = c.event_id
      join ${memberships} m on m.org_id = s.org_id and m.user_id = c.user_id
      join ${users} u on u.id = c.user_id
      left join ${notificationSettings} ns on ns.user_id = c.user_id
     where c.user_id is distinct from s.actor_user
       and s.scope = any(${roleScopes})
  )`;

const MENTION_AS_NAME = String.raw`@\[([^\]\n]*)\]\(user:[0-9a-fA-F-]{36}\)`;

const inserted = sql`inserted as (
    insert into ${notifications} (id, org_id, user_id, event_id, kind, event_type, change_version, actor, record_type, record_id,
                               title, excerpt, fields, shown, mail_state)
    select ${SQL_UUIDV7}, r.org_id, r.user_id, r.event_id, r.kind, r.type, r.change_version, coalesce(r.actor, '{"type":"system","id":null,"name":"opsroom"}'::jsonb),
           r.record_type, r.record_id,
           coalesce(r.data->>'title', r.data->>'name', (select t.title from ${tasks} t where t.org_id = r.org_id and t.id = r.record_id), ''),
           case when r.type = 'comment.created' then left(regexp_replace(r.data->>'body', ${MENTION_AS_NAME}::text, '@\\1', 'g'), 280) end,
           coalesce((select jsonb_agg(k order by k) from jsonb_object_keys(r.changes) k), '[]'::jsonb),
           (r.pref->>'inApp')::boolean,
           case r.pref->>'email' when 'immediate' then 'pending' when 'digest' then 'digest' else 'none' end
      from recipients r
     where (r.pref->>'inApp')::boolean or r.pref->>'email' <> 'none'
    on conflict (event_id, user_id) do nothing
    returning *
  ),
  followed as (
    insert into ${subscriptions} (org_id, user_id, record_type, record_id, reason)
    select distinct on (s.org_id, s.record_type, s.record_id, d.user_id) s.org_id, d.user_id, s.record_type, s.record_id, d.reason
      from directed d join subject s on s.id = d.event_id
      join ${memberships} m on m.org_id = s.org_id and m.user_id = d.user_id
     order by s.org_id, s.record_type, s.record_id, d.user_id, d.rank
    on conflict do nothing
  )`;

/**
 * Derives the notifications of `which` events (marking them notified), and follows their records
 * for the people they name. Answers the notifications made, with whom each is for.
 */
export async function deriveNotifications(
  db: Database,
  which: EventsToDerive,
): Promise<{ marked: number; notifications: DerivedNotification[] }> {
  const [row] = await run<{ marked: number; notifications: DerivedNotification[] | null }>(
    db,
    sql`with ${marked(which)}, ${subject}, ${directed}, ${recipients}, ${inserted}
        select (select count(*)::int from ev) as marked,
               (select json_agg(json_build_object('notification', ${notificationJson("n")}, 'orgId', n.org_id, 'userId', n.user_id,
                                                  'email', u.email, 'name', u.name, 'mailState', n.mail_state, 'shown', n.shown)
                                order by n.change_version, n.user_id)
                  from inserted n join ${users} u on u.id = n.user_id) as notifications`,
  );
  return { marked: row?.marked ?? 0, notifications: row?.notifications ?? [] };
}

/** A notification mail to queue: the notifications it tells of, in the state they wait in. */
export interface NotificationMail {
  mailId: string;
  notificationIds: string[];
  /** pending: one notification's own mail; digest: a morning's. */
  waiting: "pending" | "digest";
  to: string;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
}

/**
 * Queues mails in the outbox and marks their notifications queued (or digested) in one statement.
 * A notification already taken (by the request or the sweep, whichever came first) is not taken
 * again, and a mail none of whose notifications it took is not queued: none goes twice. The mails
 * name no organisation (a digest tells of several), only their person.
 */
export async function queueNotificationMails(db: Database, mails: NotificationMail[]): Promise<string[]> {
  if (mails.length === 0) return [];
  const rows = await run<{ id: string }>(
    db,
    sql`with mails as (
          select * from jsonb_to_recordset(${JSON.stringify(mails)}::jsonb)
            as x("mailId" uuid, "notificationIds" uuid[], waiting text, "to" text, subject text, text text, html text, headers jsonb)
        ),
        taken as (
          update ${notifications} n set mail_state = case when n.mail_state = 'pending' then 'queued' else 'digested' end
            from mails m where n.id = any(m."notificationIds") and n.mail_state = m.waiting
          returning n.id, n.user_id, m."mailId"
        ),
        digested as (
          insert into ${notificationSettings} (user_id, digest_sent_at)
          select distinct t.user_id, now() from taken t join mails m on m."mailId" = t."mailId" where m.waiting = 'digest'
          on conflict (user_id) do update set digest_sent_at = excluded.digest_sent_at
        )
        insert into ${mailOutbox} (id, org_id, user_id, kind, to_address, subject, text_body, html_body, headers)
        select m."mailId", null::uuid, (select t.user_id from taken t where t."mailId" = m."mailId" limit 1),
               case when m.waiting = 'pending' then 'notification' else 'digest' end, m."to", m.subject, m.text, m.html, m.headers
          from mails m where exists (select 1 from taken t where t."mailId" = m."mailId")
        returning id`,
  );
  return rows.map((r) => r.id);
}

/** Notifications waiting for their own mail past `graceSeconds` (a request that queued none): the sweep's. */
export function pendingMail(db: Database, graceSeconds: number, limit: number): Promise<DerivedNotification[]> {
  return run<DerivedNotification>(
    db,
    sql`select ${notificationJson("n")} as notification, n.org_id as "orgId", n.user_id as "userId", u.email, u.name,
               n.mail_state as "mailState", n.shown
          from ${notifications} n join ${users} u on u.id = n.user_id
         where n.mail_state = 'pending' and n.created_at < now() - make_interval(secs => ${graceSeconds})
         order by n.created_at limit ${limit}`,
  );
}

/** Notifications not yet taken by their person's room, past `graceSeconds`: the sweep pushes them again. */
export function unpushed(
  db: Database,
  graceSeconds: number,
  limit: number,
): Promise<Array<{ orgId: string; userId: string; notification: Notification }>> {
  return run(
    db,
    sql`select n.org_id as "orgId", n.user_id as "userId", ${notificationJson("n")} as notification from ${notifications} n
         where n.pushed_at is null and n.shown and n.created_at < now() - make_interval(secs => ${graceSeconds})
           and n.created_at > now() - interval '1 day'
         order by n.created_at limit ${limit}`,
  );
}

/** The room took these for their people's sockets. */
export async function markPushed(db: Database, ids: string[]): Promise<void> {
  if (ids.length)
    await run(db, sql`update ${notifications} set pushed_at = now() where id = any(${sql.param(ids)}::uuid[]) and pushed_at is null`);
}

export type { NotificationKind };

/**
 * An unsubscribe link's effect (no session: its token was verified): that kind's mail off for the
 * person, or (digest) every kind they had in the digest; what waited for a mail then waits for none.
 */
export async function unsubscribe(db: Database, userId: string, target: NotificationKind | "digest"): Promise<boolean> {
  const defaults = sql`${JSON.stringify(DEFAULT_PREFERENCES)}::jsonb`;
  const kinds = target === "digest" ? NOTIFICATION_KINDS : [target];
  const effective = (kind: string) => sql`coalesce(s.preferences -> ${kind}::text, ${defaults} -> ${kind}::text)`;
  const turnedOff = sql.join(
    kinds.map(
      (kind) =>
        sql`jsonb_build_object(${kind}::text, case when ${target === "digest"} and ${effective(kind)}->>'email' <> 'digest' then ${effective(kind)}
                                             else ${effective(kind)} || '{"email":"none"}'::jsonb end)`,
    ),
    sql` || `,
  );
  const [row] = await run<{ done: boolean }>(
    db,
    sql`with person as (select id from ${users} where id = ${userId}::uuid),
        current as (select p.id as user_id, coalesce(x.preferences, '{}'::jsonb) as preferences from person p left join ${notificationSettings} x on x.user_id = p.id),
        written as (
          insert into ${notificationSettings} (user_id, preferences)
          select s.user_id, s.preferences || ${turnedOff} from current s
          on conflict (user_id) do update set preferences = excluded.preferences, updated_at = now()
          returning user_id
        ),
        dropped as (
          update ${notifications} set mail_state = 'none'
           where user_id = ${userId}::uuid and mail_state in ('pending', 'digest')
             and ${target === "digest" ? sql`mail_state = 'digest'` : sql`kind = ${target}::text`}
        )
        select exists (select 1 from written) as done`,
  );
  return row?.done ?? false;
}
