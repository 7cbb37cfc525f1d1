import type { SQL } from "drizzle-orm";
import { DEPENDENCY_CHECK_LINKS, MAX_BLOCKING, MAX_SUBTASKS, SUBTASK_CHECK_TASKS } from "../../domain/limits.ts";
import { CLOSED_TASK_STATUSES, MAX_TASK_DEPTH } from "../../domain/records.ts";
import { tasks } from "../schema/index.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { requestBudget } from "./engine/request-budgets.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import type { Reference, Rule } from "./engine/write-ctes.ts";

// The two graphs between tasks, checked inside the write statements: dependencies (a task's
// blockedBy, acyclic) and subtasks (parentId: a tree of at most MAX_TASK_DEPTH levels within a
// project, at most MAX_SUBTASKS under one task). Every check walks the graph with a recursive
// query over the indexes (tasks_blocked_by_idx, tasks_org_parent_created_idx), no further than
// what the request has left of its budget for that graph (request-budgets.ts), so the work a write
// does under the organisation's write lock is bounded whatever the graphs hold; the writes that
// change a graph see every write before them (WriteStatement.lockFirst), so two concurrent changes
// cannot close a cycle.

const CLOSED = sql.raw(`(${CLOSED_TASK_STATUSES.map((s) => `'${s}'`).join(", ")})`);
const MAX = sql.raw(String(MAX_TASK_DEPTH));

/** The dependency links the request's cycle checks may follow (a batch's checks share them). */
const links = requestBudget("dependency_links", DEPENDENCY_CHECK_LINKS);
const BLOCKING = sql.raw(String(MAX_BLOCKING));
const SUBTASKS = sql.raw(String(MAX_SUBTASKS));

/** What `acyclic` reports: the cycle's path, or the links followed when they ran out (see below). */
export type CycleViolation = { cycle: string[] } | { linksFollowed: number };

/**
 * `acyclic`: adding "the locked task `l` is blocked by `blocker`" closes no cycle, which is so
 * unless `blocker` is already blocked by `l`, directly or through others.
 *
 * The check is a bidirectional breadth-first search, one row of `search` per step: forward from
 * the blocker along blockedBy (`fwd`: each task reached, with the task it was reached from), and
 * backward from `l` along the tasks each one blocks (`bwd`, through the GIN index on blocked_by).
 * Each step widens the side whose frontier is smaller (backward on a tie: a task given a blocker
 * tends to be late in its chain), so a check costs about what the cheaper side's neighbourhood
 * costs, not what the graph does: a blocker at the top of a large graph given to a task that
 * blocks nothing is decided in one step. The sides meet (`meet`) exactly when there is a cycle;
 * a side that runs out of tasks proves there is none.
 *
 * Every link read counts against the request's DEPENDENCY_CHECK_LINKS: the check starts from what
 * is left of them (request-budgets.ts), reads no more than that, and adds what it read. So the work done
 * under the organisation's write lock is bounded whatever the graph holds. The violation is
 * `{ "cycle": [l, blocker, ..., l] }` (each task of the path blocked by the next), or
 * `{ "linksFollowed": n }` when the links ran out before the search decided.
 */
export function noDependencyCycle(blocker: string): Rule<typeof RULES.acyclic> {
  const org = sql`l.org_id`;
  return {
    name: RULES.acyclic,
    violation: sql`(with recursive search(step, fwd, ffront, bwd, bfront, meet, links, budget) as (
        select 0, jsonb_build_object(${blocker}::text, null), array[${blocker}::uuid], jsonb_build_object(l.id::text, null), array[l.id],
               case when l.id = ${blocker}::uuid then l.id end, 0, ${links.left}
         where not ${blocker}::uuid = any(l.blocked_by)
        union all
        select s.step + 1,
               case when d.forward then s.fwd || e.found else s.fwd end, case when d.forward then e.ids else s.ffront end,
               case when d.forward then s.bwd else s.bwd || e.found end, case when d.forward then s.bfront else e.ids end,
               e.meet, s.links + e.links, s.budget
          from search s
          cross join lateral (select cardinality(s.ffront) < cardinality(s.bfront) as forward) d
          cross join lateral (
            -- The step's links (task reached, task reached from), at most one more than the budget
            -- has left; then each task reached once: whether it is new to this side, and whether
            -- the other side has reached it already.
            select coalesce(jsonb_object_agg(n.id, n.parent) filter (where n.new), '{}') as found,
                   coalesce(array_agg(n.id) filter (where n.new), '{}') as ids,
                   min(n.id::text) filter (where n.meets)::uuid as meet,
                   coalesce(sum(n.links), 0)::int as links
              from (select r.id, min(r.parent::text) as parent, count(*) as links,
                           not ((case when d.forward then s.fwd else s.bwd end) ? r.id::text) as new,
                           (case when d.forward then s.bwd else s.fwd end) ? r.id::text as meets
                      from (select x.id, t.id as parent from ${tasks} t cross join unnest(t.blocked_by) as x(id)
                             where d.forward and t.org_id = ${org} and t.id = any(s.ffront)
                            union all
                            select b.id, y.id from unnest(s.bfront) as y(id)
                             cross join lateral (select x.id, x.org_id from ${tasks} x where x.blocked_by @> array[y.id] offset 0) b
                             where not d.forward and b.org_id = ${org}
                            limit s.budget - s.links + 1) r
                     group by r.id) n
          ) e
         where s.meet is null and cardinality(s.ffront) > 0 and cardinality(s.bfront) > 0 and s.links <= s.budget
      ),
      final as (select * from search order by step desc limit 1),
      spent as (select ${links.spendTo(sql`${links.limit} - f.budget + f.links`)} from final f),
      -- The cycle through the meeting task: back to the blocker along fwd, on to l along bwd.
      upstream(id, n) as (
        select meet, 0 from final
        union all
        select (f.fwd ->> u.id::text)::uuid, u.n + 1 from upstream u, final f where f.fwd ->> u.id::text is not null
      ),
      downstream(id, n) as (
        select meet, 0 from final
        union all
        select (f.bwd ->> w.id::text)::uuid, w.n + 1 from downstream w, final f where f.bwd ->> w.id::text is not null
      )
      select case
          when f.meet is not null then jsonb_build_object('cycle', jsonb_build_array(l.id)
            || (select jsonb_agg(u.id order by u.n desc) from upstream u)
            || coalesce((select jsonb_agg(w.id order by w.n) from downstream w where w.n > 0), '[]'::jsonb))
          when f.links > f.budget then jsonb_build_object('linksFollowed', f.links)
        end
        from final f, spent)`,
  };
}

/**
 * `blocking_limit`: the blocker blocks fewer than MAX_BLOCKING tasks (or this one already), counted
 * through the GIN index on blocked_by, no further than the limit.
 */
export function blockingLimit(blocker: string): Rule<typeof RULES.blocking_limit> {
  return {
    name: RULES.blocking_limit,
    holds: sql`${blocker}::uuid = any(l.blocked_by) or (select count(*) from (
        select 1 from (select x.org_id from ${tasks} x where x.blocked_by @> array[${blocker}::uuid] offset 0) b
         where b.org_id = l.org_id limit ${BLOCKING}) c) < ${BLOCKING}`,
  };
}

/** What `blockers_closed` reports: the open blockers' ids. */
export type OpenBlockersViolation = string[];

/** `blockers_closed`: a task moving to done has no blocker that is neither done nor cancelled; the violation lists them. */
export const blockersClosed = (status: string | undefined): Rule<typeof RULES.blockers_closed>[] =>
  status === "done"
    ? [
        {
          name: RULES.blockers_closed,
          violation: sql`(select case when l.status <> 'done' then jsonb_agg(b.id order by b.id) end
              from ${tasks} b where b.org_id = l.org_id and b.id = any(l.blocked_by) and b.status not in ${CLOSED}
            having count(*) > 0)`,
        },
      ]
    : [];

/** The subtasks the request's checks may visit (a batch's checks share them). */
const visits = requestBudget("subtask_visits", SUBTASK_CHECK_TASKS);

/**
 * The subtasks of the locked task `l` at every depth (if `only` holds), as a subquery of one row:
 * `visited`, `remaining` (what the request had left to visit) and `aggregates` over the subtasks seen,
 * `seen(id, depth, status, created_at)`. The walk stops one subtask past what is left (so
 * `visited > remaining` says it could not finish), and what it visited is counted as spent.
 */
const subtaskWalk = (aggregates: SQL, only: SQL = sql`true`) => sql`(with recursive budget(remaining) as (select ${visits.left}),
    down(id, depth, status, created_at) as (
      select s.id, 1, s.status, s.created_at from ${tasks} s where ${only} and s.org_id = l.org_id and s.parent_id = l.id
      union all
      select s.id, d.depth + 1, s.status, s.created_at from down d join ${tasks} s on s.org_id = l.org_id and s.parent_id = d.id where d.depth <= ${MAX}
    ),
    seen as (select * from down limit (select remaining from budget) + 1),
    walk as (select count(*)::int as visited, (select remaining from budget) as remaining, ${aggregates} from seen)
    select w.* from walk w cross join lateral (select ${visits.spendTo(sql`${visits.limit} - w.remaining + w.visited`)} offset 0) spent)`;

/** The violation of a subtask walk that could not finish within the request's visits: `{ visited, left }`. */
type Unfinished = { visited: number; left: number };
const unfinished = (w: string) =>
  sql.raw(`case when ${w}.visited > ${w}.remaining then jsonb_build_object('visited', ${w}.visited, 'left', ${w}.remaining) end`);

/** What `subtasks_closed` reports (see below). */
export type OpenSubtasksViolation = { open: string[] } | Unfinished;

/**
 * `subtasks_closed`: a task moving to done has no subtask (at any depth) that is neither done nor
 * cancelled; the violation is `{ open: [...] }`, listing them, or `{ visited, left }` when the
 * subtasks are more than the request may visit.
 */
export const subtasksClosed = (status: string | undefined): Rule<typeof RULES.subtasks_closed>[] =>
  status === "done"
    ? [
        {
          name: RULES.subtasks_closed,
          violation: sql`(select coalesce(${unfinished("w")}, case when w.open is not null then jsonb_build_object('open', w.open) end)
              from ${subtaskWalk(sql`jsonb_agg(seen.id order by seen.created_at, seen.id) filter (where seen.status not in ${CLOSED}) as open`, sql`l.status <> 'done'`)} w)`,
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
    parentHasRoom(parentId),
  ];
}

/**
 * `parentSubtasks`: the parent has fewer than MAX_SUBTASKS subtasks, counted no further (`already`:
 * the task is one of them).
 */
export const parentHasRoom = (parentId: string, already: SQL = sql`false`): Reference => ({
  field: "parentSubtasks",
  exists: sql`${already} or (select count(*) from (select 1 from ${tasks} s where s.org_id = ${CALLER_ORG} and s.parent_id = ${parentId}::uuid limit ${SUBTASKS}) n) < ${SUBTASKS}`,
});

/** A changed parent: a task of the locked task's own project. */
export const parentInProject = (parentId: string): Reference => ({
  field: "parentId",
  exists: sql`exists (select 1 from ${tasks} p where p.org_id = ${CALLER_ORG} and p.project_id = l.project_id and p.id = ${parentId}::uuid)`,
});

/** What `parent_acyclic` reports: the cycle; what `parent_depth` reports (see parentRules). */
export type ParentCycleViolation = string[];
export type ParentDepthViolation = { level: number } | Unfinished;

/**
 * Moving the locked task `l` under `parentId`: `parent_acyclic` (the parent is not `l` nor one of its
 * subtasks; the violation is the cycle, l -> parent -> ... -> l, each the parent of the one
 * before) and `parent_depth` (the deepest subtask of `l` stays within MAX_TASK_DEPTH levels; the
 * violation is `{ level }`, the level it would reach, or `{ visited, left }` when the subtasks of
 * `l` are more than the request may visit).
 */
export function parentRules(parentId: string): Rule<typeof RULES.parent_acyclic | typeof RULES.parent_depth>[] {
  const chain = ancestry(parentId, sql`l.org_id`, sql`l.id`);
  return [
    {
      name: RULES.parent_acyclic,
      violation: sql`(${chain} select case when bool_or(up.id = l.id) then json_build_array(l.id)::jsonb || jsonb_agg(up.id order by up.level) end from up)`,
    },
    {
      name: RULES.parent_depth,
      violation: sql`(select coalesce(${unfinished("h")}, case when p.levels + h.height > ${MAX} then jsonb_build_object('level', p.levels + h.height) end)
          from (${chain} select count(*)::int as levels from up) p, ${subtaskWalk(sql`coalesce(max(seen.depth), 0) + 1 as height`)} h)`,
    },
  ];
}
