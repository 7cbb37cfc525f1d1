import type { Actor } from "../../domain/actor.ts";
import type { EventActor } from "../../domain/events.ts";
import { DEFAULT_PREFERENCES, type Followable, type NotificationKind, type NotificationPreferences } from "../../domain/notifications.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import {
  notifications,
  notificationSettings as notificationSettingsTable,
  projects,
  risks,
  subscriptions,
  tasks,
} from "../schema/index.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// A person's inbox, follows and preferences (docs/notifications.md): each call one statement that
// checks the session with the work, as every settings call does. Notifications are the caller's
// own, in the organisation they are signed in to; no call moves a changeVersion.

export interface Notification {
  id: string;
  kind: NotificationKind;
  event: { id: string; type: string; changeVersion: number };
  actor: EventActor;
  record: { type: string; id: string; title: string };
  excerpt: string | null;
  fields: string[];
  read: boolean;
  readAt: string | null;
  createdAt: string;
}

const isoOf = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A notifications row (alias `n`) as the API answers it. */
export const notificationJson = (n: string) =>
  sql.raw(`json_build_object('id', ${n}.id, 'kind', ${n}.kind,
    'event', json_build_object('id', ${n}.event_id, 'type', ${n}.event_type, 'changeVersion', ${n}.change_version),
    'actor', ${n}.actor, 'record', json_build_object('type', ${n}.record_type, 'id', ${n}.record_id, 'title', ${n}.title),
    'excerpt', ${n}.excerpt, 'fields', ${n}.fields, 'read', ${n}.read_at is not null,
    'readAt', ${isoOf(`${n}.read_at`)}, 'createdAt', ${isoOf(`${n}.created_at`)})`);

const CALLER_USER = sql`(select user_id from key)`;

/** Where a page of the inbox ended: unread first, then newest first. */
export interface InboxPosition {
  unread: boolean;
  createdAt: string;
  id: string;
}

/** The caller's notifications, unread first then newest, a page after `after`; and how many are unread. */
export async function listNotifications(
  db: Database,
  actor: Actor,
  input: { limit: number; after: InboxPosition | null; unreadOnly: boolean },
): Promise<SettingsOutcome<{ notifications: Notification[]; hasMore: boolean; unread: number }>> {
  const unreadKey = sql`(n.read_at is null)::int`;
  const after = input.after
    ? sql`and (${unreadKey}, n.created_at, n.id) < (${input.after.unread ? 1 : 0}::int, ${input.after.createdAt}::timestamptz, ${input.after.id}::uuid)`
    : sql``;
  const { caller, role, userId, row } = await withCaller<{ page: Notification[] | null; unread: number }>(
    db,
    actor,
    null,
    sql`page as (
          select n.* from ${notifications} n
           where n.user_id = ${CALLER_USER} and n.org_id = ${CALLER_ORG} and n.shown ${input.unreadOnly ? sql`and n.read_at is null` : sql``} ${after}
           order by ${unreadKey} desc, n.created_at desc, n.id desc
           limit ${input.limit + 1}
        )`,
    sql`(select json_agg(${notificationJson("p")} order by (p.read_at is null)::int desc, p.created_at desc, p.id desc) from page p) as page,
        (select count(*)::int from ${notifications} n where n.user_id = ${CALLER_USER} and n.org_id = ${CALLER_ORG} and n.shown and n.read_at is null) as unread`,
  );
  const page = row.page ?? [];
  return { caller, role, userId, notifications: page.slice(0, input.limit), hasMore: page.length > input.limit, unread: row.unread };
}

/** Marks one of the caller's notifications read (`id`), or all of them (null); answers those it marked and how many stay unread. */
export async function markRead(
  db: Database,
  actor: Actor,
  id: string | null,
): Promise<SettingsOutcome<{ found: boolean; notification: Notification | null; marked: number }>> {
  const which = id === null ? sql`` : sql`and n.id = ${id}::uuid`;
  const { caller, role, userId, row } = await withCaller<{ found: boolean; notification: Notification | null; marked: number }>(
    db,
    actor,
    null,
    sql`target as (
          select n.id from ${notifications} n where n.user_id = ${CALLER_USER} and n.org_id = ${CALLER_ORG} and n.shown ${which}
           ${id === null ? sql`and n.read_at is null` : sql``} for update
        ),
        marked as (
          update ${notifications} n set read_at = coalesce(n.read_at, now()) from target t where n.id = t.id returning n.*
        )`,
    sql`exists (select 1 from target) as found, (select ${notificationJson("m")} from marked m limit 1) as notification,
        (select count(*)::int from marked) as marked`,
  );
  return { caller, role, userId, found: row.found, notification: id === null ? null : row.notification, marked: row.marked };
}

const TABLES: Record<Followable, typeof tasks | typeof projects | typeof risks> = { task: tasks, project: projects, risk: risks };

export interface Following {
  recordType: Followable;
  recordId: string;
  following: boolean;
  reason: string | null;
}

/**
 * Follows (true) or unfollows (false) a record of the caller's organisation by hand, or reads
 * whether the caller follows it (null); `scope` is the record's read scope, which the caller must
 * hold. Unfollowed stays unfollowed: being its assignee again or commenting does not follow it
 * again (an assignment or a mention still notifies: they are addressed to the person).
 */
export async function setFollowing(
  db: Database,
  actor: Actor,
  input: { recordType: Followable; recordId: string; following: boolean | null; scope: Scope },
): Promise<SettingsOutcome<{ found: boolean; subscription: Following | null }>> {
  const followed =
    input.following === null
      ? sql`followed as (
          select s.* from ${subscriptions} s join record r on s.record_id = r.id
           where s.org_id = ${CALLER_ORG} and s.user_id = ${CALLER_USER} and s.record_type = ${input.recordType}::text
        )`
      : sql`followed as (
          insert into ${subscriptions} (org_id, user_id, record_type, record_id, reason, following)
          select ${CALLER_ORG}, ${CALLER_USER}, ${input.recordType}::text, r.id, 'manual', ${input.following} from record r
          on conflict (org_id, record_type, record_id, user_id) do update set following = excluded.following,
            reason = case when excluded.following then 'manual' else ${subscriptions}.reason end
          returning *
        )`;
  const { caller, role, userId, row } = await withCaller<{ found: boolean; subscription: Following | null }>(
    db,
    actor,
    input.scope,
    sql`record as (select r.id from ${TABLES[input.recordType]} r where r.org_id = ${CALLER_ORG} and r.id = ${input.recordId}::uuid),
        ${followed}`,
    // No row: never followed, by hand or by what the person did.
    sql`exists (select 1 from record) as found,
        (select coalesce((select json_build_object('recordType', f.record_type, 'recordId', f.record_id, 'following', f.following, 'reason', f.reason)
                            from followed f),
                         json_build_object('recordType', ${input.recordType}::text, 'recordId', r.id, 'following', false, 'reason', null))
           from record r) as subscription`,
  );
  return { caller, role, userId, found: row.found, subscription: row.subscription };
}

export interface NotificationSettings {
  preferences: NotificationPreferences;
  timeZone: string;
}

const settingsJson = sql`json_build_object('preferences', ${JSON.stringify(DEFAULT_PREFERENCES)}::jsonb || coalesce(s.preferences, '{}'::jsonb),
  'timeZone', coalesce(s.time_zone, 'UTC'))`;

/** The caller's preferences (each kind's default where they chose none) and time zone; with `change`, changed first. */
export async function notificationSettings(
  db: Database,
  actor: Actor,
  change: { preferences?: Partial<NotificationPreferences> | undefined; timeZone?: string | undefined } | null,
): Promise<SettingsOutcome<{ settings: NotificationSettings }>> {
  const write = change
    ? sql`written as (
          insert into ${notificationSettingsTable} (user_id, preferences, time_zone)
          select k.user_id, ${JSON.stringify(change.preferences ?? {})}::jsonb, coalesce(${change.timeZone ?? null}::text, 'UTC')
            from key k join auth a on true where k.user_id is not null
          on conflict (user_id) do update
            set preferences = ${notificationSettingsTable}.preferences || excluded.preferences,
                time_zone = coalesce(${change.timeZone ?? null}::text, ${notificationSettingsTable}.time_zone), updated_at = now()
          returning *
        )`
    : sql`written as (select * from ${notificationSettingsTable} where false)`;
  const { caller, role, userId, row } = await withCaller<{ settings: NotificationSettings }>(
    db,
    actor,
    null,
    write,
    sql`(select ${settingsJson} from (select 1) one
          left join lateral (select * from written union all select * from ${notificationSettingsTable} x where x.user_id = ${CALLER_USER}
                              and not exists (select 1 from written) limit 1) s on true) as settings`,
  );
  return { caller, role, userId, settings: row.settings };
}

/**
 * A notification written as it is, not derived: the demo owner's (services/seed/demo-views.ts),
 * whose fixed id the OpenAPI document's example names. Nothing if it is there already.
 */
export async function insertNotification(
  db: Database,
  n: { id: string; orgId: string; userId: string; taskId: string; title: string; actor: { type: "system"; id: null; name: string } },
): Promise<void> {
  await run(
    db,
    sql`insert into ${notifications} (id, org_id, user_id, event_id, kind, event_type, change_version, actor, record_type, record_id, title, excerpt, shown, mail_state)
        values (${n.id}::uuid, ${n.orgId}::uuid, ${n.userId}::uuid, ${n.id}::uuid, 'mentioned', 'comment.created', 0, ${JSON.stringify(n.actor)}::jsonb,
                'task', ${n.taskId}::uuid, coalesce((select t.title from ${tasks} t where t.id = ${n.taskId}::uuid), ${n.title}), 'Could you check the drawings, @Owner?', true, 'none')
        on conflict do nothing`,
  );
}
