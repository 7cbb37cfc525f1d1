import { sql, type SQL } from "drizzle-orm";
import { CLOSED_TASK_STATUSES, MAX_TASK_DEPTH } from "../../domain/records.ts";
import { tasks } from "../schema/index.ts";
import { CALLER_ORG } from "./caller.ts";
import type { Reference, Rule } from "./write-ctes.ts";

// The two graphs between tasks, checked inside the write statements: dependencies (a task's
// blockedBy, acyclic) and subtasks (parentId: a tree of at most MAX_TASK_DEPTH levels within a
// project). Every check walks the graph from one task with a recursive query over the indexes
// (tasks_blocked_by_idx, tasks_org_parent_created_idx); the writes that change a graph see every
// write before them (WriteStatement.lockFirst), so two concurrent changes cannot close a cycle.

const CLOSED = sql.raw(`(${CLOSED_TASK_STATUSES.map((s) => `'${s}'`).join(", ")})`);
const MAX = sql.raw(String(MAX_TASK_DEPTH));

/**
 * `acyclic`: adding "the locked task `l` is blocked by `blocker`" closes no cycle. Its violation is
 * the cycle, as task ids from `l` back to `l`: l is blocked by blocker, which is blocked by ...,
 * which is blocked by l. The walk follows blockedBy from the blocker (each edge once) until it
 * reaches `l`, then back along the edges it came by.
 */
export function noDependencyCycle(blocker: string): Rule {
  return {
    name: "acyclic",
    violation: sql`(with recursive reach(id, prev) as (
        select ${blocker}::uuid, null::uuid
        union
        select x.id, r.id from reach r
          join ${tasks} t on t.org_id = l.org_id and t.id = r.id
          cross join unnest(t.blocked_by) as x(id)
         where r.id <> l.id
      ), back(id, n) as (
        select l.id, 0 where exists (select 1 from reach where reach.id = l.id)
        union all
        select (select r.prev from reach r where r.id = b.id and r.prev is not null order by r.prev limit 1), b.n + 1
          from back b where b.id <> ${blocker}::uuid
      )
      select case when exists (select 1 from back) then
        json_build_array(l.id)::jsonb || (select jsonb_agg(b.id order by b.n desc) from back b) end)`,
  };
}

/** `blockers_closed`: a task moving to done has no blocker that is neither done nor cancelled; the violation lists them. */
export const blockersClosed = (status: string | undefined): Rule[] =>
  status === "done"
    ? [
        {
          name: "blockers_closed",
          violation: sql`(select case when l.status <> 'done' then jsonb_agg(b.id order by b.id) end
              from ${tasks} b where b.org_id = l.org_id and b.id = any(l.blocked_by) and b.status not in ${CLOSED}
            having count(*) > 0)`,
        },
      ]
    : [];

/** The subtasks of `root` at every depth, as a recursive query `down(id, depth)`. */
const descendants = (root: SQL, org: SQL) => sql`with recursive down(id, depth) as (
    select s.id, 1 from ${tasks} s where s.org_id = ${org} and s.parent_id = ${root}
    union all
    select s.id, d.depth + 1 from down d join ${tasks} s on s.org_id = ${org} and s.parent_id = d.id where d.depth <= ${MAX}
  )`;

/** `subtasks_closed`: a task moving to done has no subtask (at any depth) that is neither done nor cancelled; the violation lists them. */
export const subtasksClosed = (status: string | undefined): Rule[] =>
  status === "done"
    ? [
        {
          name: "subtasks_closed",
          violation: sql`(${descendants(sql`l.id`, sql`l.org_id`)}
            select case when l.status <> 'done' then jsonb_agg(t.id order by t.created_at, t.id) end
              from down join ${tasks} t on t.org_id = l.org_id and t.id = down.id
             where t.status not in ${CLOSED} having count(*) > 0)`,
        },
      ]
    : [];

/** The chain from `parent` up to its root, as `up(id, level)` (the parent is level 1), stopping at `stop` if given. */
const ancestry = (parent: string, org: SQL, stop?: SQL) => sql`with recursive up(id, parent_id, level) as (
    select p.id, p.parent_id, 1 from ${tasks} p where p.org_id = ${org} and p.id = ${parent}::uuid
    union all
    select t.id, t.parent_id, up.level + 1 from up join ${tasks} t on t.org_id = ${org} and t.id = up.parent_id
     where up.level <= ${MAX} ${stop ? sql`and up.id <> ${stop}` : sql``}
  )`;

/**
 * A new task's parent: a task of the project it is created in (`parentId`), and shallow enough
 * that the new task is at most level MAX_TASK_DEPTH (`parentDepth`, answered as a conflict).
 */
export function newTaskParent(parentId: string, projectId: string): Reference[] {
  return [
    {
      field: "parentId",
      exists: sql`exists (select 1 from ${tasks} p where p.org_id = ${CALLER_ORG} and p.project_id = ${projectId}::uuid and p.id = ${parentId}::uuid)`,
    },
    { field: "parentDepth", exists: sql`coalesce((${ancestry(parentId, CALLER_ORG)} select max(level) from up), 0) < ${MAX}` },
  ];
}

/** A changed parent: a task of the locked task's own project. */
export const parentInProject = (parentId: string): Reference => ({
  field: "parentId",
  exists: sql`exists (select 1 from ${tasks} p where p.org_id = ${CALLER_ORG} and p.project_id = l.project_id and p.id = ${parentId}::uuid)`,
});

/**
 * Moving the locked task `l` under `parentId`: `parent_acyclic` (the parent is not `l` nor one of its
 * subtasks; the violation is the cycle, l -> parent -> ... -> l, each the parent of the one
 * before) and `parent_depth` (the deepest subtask of `l` stays within MAX_TASK_DEPTH levels; the
 * violation is the level it would reach).
 */
export function parentRules(parentId: string): Rule[] {
  const chain = ancestry(parentId, sql`l.org_id`, sql`l.id`);
  return [
    {
      name: "parent_acyclic",
      violation: sql`(${chain} select case when bool_or(up.id = l.id) then json_build_array(l.id)::jsonb || jsonb_agg(up.id order by up.level) end from up)`,
    },
    {
      name: "parent_depth",
      violation: sql`(select case when p.levels + h.height > ${MAX} then to_jsonb(p.levels + h.height) end
          from (${chain} select count(*)::int as levels from up) p,
               (${descendants(sql`l.id`, sql`l.org_id`)} select coalesce(max(depth), 0) + 1 as height from down) h)`,
    },
  ];
}
