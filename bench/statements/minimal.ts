import type { Statement } from "../../db/client.ts";

// The floors of sections 8 and 9: for each call type, the smallest statement we could write by hand that
// does the same logical work as opsroom's and answers the same data. Each finds the key by its
// hash (not revoked), checks its scope, filters by its organisation, and builds the record(s) as
// JSON with the same fields and formats as the API's (domain/resources.ts, the task resource:
// blocking and the subtask counts included). The change also takes the organisation's write lock,
// locks and updates the row (version, updated_at), bumps the organisation's changeVersion and
// writes the outbox event with the change's from and to, as one statement; the create does the
// same for a new row, its project and its (active) assignee looked up in the key's organisation. What they leave out
// is what a hand-written statement for one call type needs not say: no 401/403/404 columns
// beyond found and allowed, no last_used_at touch, no If-Match, no generic "what changed"
// (a title change knows its one field), no 4 MiB page cap.

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const derivedFields = (
  t: string,
) => `'blocking', (select coalesce(json_agg(b.id order by b.id), '[]') from (select x.id, x.org_id from tasks x where x.blocked_by @> array[${t}.id] offset 0) b where b.org_id = ${t}.org_id),
  'subtaskCount', (select count(*)::int from tasks s where s.org_id = ${t}.org_id and s.parent_id = ${t}.id),
  'subtasksDone', (select count(*)::int from tasks s where s.org_id = ${t}.org_id and s.parent_id = ${t}.id and s.status = 'done'),`;
/** A task's record JSON; `derived` false for a new task, which blocks nothing and has no subtasks yet. */
const taskJson = (t: string, derived = true) => `json_build_object('id', ${t}.id, 'orgId', ${t}.org_id, 'projectId', ${t}.project_id,
  'assigneeId', ${t}.assignee_id, 'milestoneId', ${t}.milestone_id, 'parentId', ${t}.parent_id, 'title', ${t}.title,
  'description', ${t}.description, 'status', ${t}.status, 'priority', ${t}.priority, 'dueDate', to_char(${t}.due_date, 'YYYY-MM-DD'),
  'blockedBy', ${t}.blocked_by, 'labelIds', ${t}.label_ids, 'externalId', ${t}.external_id,
  ${derived ? derivedFields(t) : `'blocking', '[]'::json, 'subtaskCount', 0, 'subtasksDone', 0,`}
  'version', ${t}.version, 'createdAt', to_char(${t}.created_at at time zone 'UTC', ${ISO}), 'updatedAt', to_char(${t}.updated_at at time zone 'UTC', ${ISO}))`;

/** GET /v1: the key (any valid key may describe itself), its organisation's changeVersion; the operations are the app's, not the database's. */
export const minimalDescribe = (keyHash: string): Statement => ({
  text: `select true as found, json_build_object('orgId', k.org_id, 'keyId', k.id, 'application', k.application,
         'scopes', k.scopes, 'changeVersion', o.change_version) as self
  from api_keys k join organisations o on o.id = k.org_id
 where k.key_hash = $1 and k.revoked_at is null`,
  params: [keyHash],
});

/** GET /v1/tasks/:id */
export const minimalGetTask = (keyHash: string, id: string): Statement => ({
  text: `select true as found, $2 = any(k.scopes) as allowed, o.change_version,
  (select ${taskJson("t")} from tasks t where t.org_id = o.id and t.id = $3) as record
  from api_keys k left join organisations o on o.id = k.org_id and $2 = any(k.scopes)
 where k.key_hash = $1 and k.revoked_at is null`,
  params: [keyHash, "tasks.read", id],
});

/** GET /v1/tasks?limit=50: the first page in created order, whether there is more, and the page's end key. */
export const minimalListTasks = (keyHash: string, limit: number): Statement => ({
  text: `select true as found, $2 = any(k.scopes) as allowed, o.change_version, p.records, p.count, p.end_key,
       exists (select 1 from tasks m where m.org_id = o.id offset $3) as has_more
  from api_keys k left join organisations o on o.id = k.org_id and $2 = any(k.scopes)
  left join lateral (
    select coalesce(json_agg(${taskJson("t")} order by t.created_at, t.id), '[]')::text as records, count(*)::int as count,
           (array_agg(json_build_array(to_char(t.created_at at time zone 'UTC', ${ISO}), t.id) order by t.created_at desc, t.id desc))[1] as end_key
      from (select * from tasks t where t.org_id = o.id order by t.created_at, t.id limit $3) t) p on true
 where k.key_hash = $1 and k.revoked_at is null`,
  params: [keyHash, "tasks.read", limit],
});

/** PATCH /v1/tasks/:id {title}: lock, update, bump, outbox event with from/to; the new record and the event. */
export const minimalPatchTitle = (keyHash: string, id: string, title: string, eventId: string): Statement => ({
  text: `with k as (
    select k.id, k.org_id, k.application from api_keys k
     where k.key_hash = $1 and k.revoked_at is null and $2 = any(k.scopes) and pg_advisory_xact_lock(1869640448, hashtext(k.org_id::text)) is not null),
  old as (select t.id, t.title from tasks t, k where t.org_id = k.org_id and t.id = $3 for update),
  upd as (
    update tasks t set title = $4, version = t.version + 1, updated_at = now() from old
     where t.id = old.id and old.title is distinct from $4 returning t.*),
  bump as (update organisations o set change_version = o.change_version + 1 from upd where o.id = upd.org_id returning o.change_version),
  ev as (
    insert into events (id, org_id, change_version, type, scope, data, changes, actor)
    select $5, upd.org_id, bump.change_version, 'task.updated', 'tasks.read', ${taskJson("upd")},
           jsonb_build_object('title', jsonb_build_object('from', old.title, 'to', upd.title)),
           jsonb_build_object('type', 'key', 'id', k.id, 'name', k.application)
      from upd, bump, old, k
    returning *)
  select (select true from k) as allowed, (select data from ev) as record,
         (select json_build_object('id', e.id, 'type', e.type, 'orgId', e.org_id, 'changeVersion', e.change_version,
            'occurredAt', to_char(e.occurred_at at time zone 'UTC', ${ISO}), 'data', e.data, 'changes', e.changes, 'actor', e.actor) from ev e) as event`,
  params: [keyHash, "tasks.manage", id, title, eventId],
});

/**
 * POST /v1/tasks {projectId, assigneeId, dueDate, title}: the write lock, the project and the
 * active assignee in the key's organisation, the insert, the bump and the outbox event; the new
 * record and the event. A new task blocks nothing and has no subtasks yet, so its record says so
 * without looking.
 */
export const minimalCreateTask = (
  keyHash: string,
  values: { id: string; projectId: string; assigneeId: string; dueDate: string; title: string },
  eventId: string,
): Statement => ({
  text: `with k as (
    select k.id, k.org_id, k.application from api_keys k
     where k.key_hash = $1 and k.revoked_at is null and $2 = any(k.scopes) and pg_advisory_xact_lock(1869640448, hashtext(k.org_id::text)) is not null),
  p as (select p.id from projects p, k where p.org_id = k.org_id and p.id = $4),
  a as (select a.id from personnel a, k where a.org_id = k.org_id and a.id = $5 and a.active),
  ins as (
    insert into tasks (id, org_id, project_id, assignee_id, title, due_date)
    select $3, k.org_id, p.id, a.id, $6, $7::date from k, p, a returning *),
  bump as (update organisations o set change_version = o.change_version + 1 from ins where o.id = ins.org_id returning o.change_version),
  ev as (
    insert into events (id, org_id, change_version, type, scope, data, actor)
    select $8, ins.org_id, bump.change_version, 'task.created', 'tasks.read',
           ${taskJson("ins", false)},
           jsonb_build_object('type', 'key', 'id', k.id, 'name', k.application)
      from ins, bump, k
    returning *)
  select (select true from k) as allowed, (select data from ev) as record,
         (select json_build_object('id', e.id, 'type', e.type, 'orgId', e.org_id, 'changeVersion', e.change_version,
            'occurredAt', to_char(e.occurred_at at time zone 'UTC', ${ISO}), 'data', e.data, 'changes', e.changes, 'actor', e.actor) from ev e) as event`,
  params: [keyHash, "tasks.manage", values.id, values.projectId, values.assigneeId, values.title, values.dueDate, eventId],
});
