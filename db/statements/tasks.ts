import { getTableName, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { MAX_BLOCKERS } from "../../domain/limits.ts";
import { TASK_TRANSITIONS } from "../../domain/records.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { searchVector } from "../schema/columns.ts";
import { labels, tasks } from "../schema/index.ts";
import { filesOf, filesOfTaskComments } from "./attachment-cascades.ts";
import { checklistItemResource } from "./checklist-items.ts";
import { commentResource } from "./comments.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import type { Cascade } from "./engine/outbox.ts";
import type { Expansion } from "./engine/projection.ts";
import type { ListFiltersOf } from "./engine/read.ts";
import { activePerson, milestoneOfProject, projectOfOrganisation } from "./engine/references.ts";
import { defineResource, derived, type FieldsOf, type RecordOf, type Resource } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import type { Reference } from "./engine/write-ctes.ts";
import { milestoneResource } from "./milestones.ts";
import { personnelResource } from "./personnel.ts";
import { PROJECT_EXPANSION } from "./projects.ts";
import {
  blockersClosed,
  blockingLimit,
  newTaskParent,
  noDependencyCycle,
  parentHasRoom,
  parentInProject,
  parentRules,
  subtasksClosed,
} from "./task-graph.ts";

/** The tasks table's name, for the derived fields' parameterless SQL text (sql.raw). */
const TASKS = getTableName(tasks);

/** The related records a task read may embed (?expand=). */
const TASK_EXPANSIONS: Record<string, Expansion> = {
  assignee: { name: "assignee", resource: personnelResource, column: "assignee_id", scope: "organisation.read" },
  ...PROJECT_EXPANSION,
  milestone: { name: "milestone", resource: milestoneResource, column: "milestone_id", scope: "projects.read" },
};

export const taskResource = defineResource(RESOURCES.task, tasks, {
  search: (a) => searchVector(sql.raw(`${a}.title`), sql.raw(`${a}.description`)),
  expansions: TASK_EXPANSIONS,
  derived: {
    // The tasks this one blocks: the inverse of their blockedBy, found by the GIN index alone.
    // (With both conditions in one scan the planner ANDed in the organisation's whole index: a
    // scan of every task of the organisation per task listed. OFFSET 0 keeps the tenant check a
    // filter on the few rows the GIN index finds.)
    blocking: derived<string[]>((a) =>
      sql.raw(
        `(select coalesce(json_agg(b.id order by b.id), '[]'::json) from (select x.id, x.org_id from ${TASKS} x where x.blocked_by @> array[${a}.id] offset 0) b where b.org_id = ${a}.org_id)`,
      ),
    ),
    subtaskCount: derived<number>((a) =>
      sql.raw(`(select count(*)::int from ${TASKS} s where s.org_id = ${a}.org_id and s.parent_id = ${a}.id)`),
    ),
    subtasksDone: derived<number>((a) =>
      sql.raw(`(select count(*)::int from ${TASKS} s where s.org_id = ${a}.org_id and s.parent_id = ${a}.id and s.status = 'done')`),
    ),
  },
});
export type TaskRecord = RecordOf<typeof taskResource>;
export type TaskValues = FieldsOf<typeof taskResource>;
export type NewTask = TaskValues & Pick<TaskRecord, "projectId" | "assigneeId" | "dueDate" | "title">;

const { locked: l } = taskResource;

/** A task list's filters (domain/resources.ts RESOURCES.task). */
export type TaskFilters = ListFiltersOf<typeof taskResource>;

/** Every label named is one of the organisation's. */
const labelsExist = (ids: string[]): Reference => ({
  field: "labelIds",
  exists: sql`not exists (select 1 from unnest(${sql.param(ids)}::uuid[]) x(id)
    where not exists (select 1 from ${labels} b where b.org_id = ${CALLER_ORG} and b.id = x.id))`,
});

/** A write reads the graphs or the labels: it must see every write before it (WriteStatement.lockFirst). */
const readsOtherTasks = (values: TaskValues) => values.parentId != null || (values.labelIds?.length ?? 0) > 0 || values.status === "done";

function createReferences(values: NewTask): Reference[] {
  const references: Reference[] = [projectOfOrganisation(values.projectId), activePerson("assigneeId", values.assigneeId)];
  if (values.milestoneId) references.push(milestoneOfProject(values.milestoneId, sql`${values.projectId}::uuid`));
  if (values.parentId) references.push(...newTaskParent(values.parentId, values.projectId));
  if (values.labelIds?.length) references.push(labelsExist(values.labelIds));
  return references;
}

export function createTask(db: Database, actor: Actor, values: NewTask, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, taskResource, {
    values,
    references: createReferences(values),
    idempotency,
    fresh: readsOtherTasks(values),
  });
}

// The workflow as SQL pairs, so the check runs on the locked row inside the statement.
const transitionPairs = sql.join(
  Object.entries(TASK_TRANSITIONS).flatMap(([from, targets]) => targets.map((to) => sql`(${from}, ${to})`)),
  sql`, `,
);

/**
 * The rules a task change is checked against: `transition` fails for a move outside the workflow,
 * `blockers_closed` and `subtasks_closed` for a move to done with open blockers or subtasks, and
 * `parent_acyclic` and `parent_depth` for a parent that would make a cycle or nest too deep.
 */
function updateChecks(patch: TaskValues) {
  const references: Reference[] = [];
  // Resending the current assignee is fine even if they left since.
  if (patch.assigneeId) {
    const assignee = activePerson("assigneeId", patch.assigneeId);
    references.push({ ...assignee, exists: sql`${l.assigneeId} = ${patch.assigneeId}::uuid or ${assignee.exists}` });
  }
  if (patch.milestoneId) references.push(milestoneOfProject(patch.milestoneId, sql`${l.projectId}`));
  if (patch.parentId)
    references.push(
      parentInProject(patch.parentId),
      parentHasRoom(patch.parentId, sql`${l.parentId} is not distinct from ${patch.parentId}::uuid`),
    );
  if (patch.labelIds?.length) references.push(labelsExist(patch.labelIds));
  const rules = [
    ...(patch.status
      ? [
          {
            name: RULES.transition,
            holds: sql`${l.status} = ${patch.status} or (${l.status}, ${patch.status}::text) in (${transitionPairs})`,
          },
        ]
      : []),
    ...blockersClosed(patch.status),
    ...subtasksClosed(patch.status),
    ...(patch.parentId ? parentRules(patch.parentId) : []),
    ...datesOrdered(patch),
  ];
  return { references, rules, fresh: readsOtherTasks(patch) };
}

/**
 * `dates_ordered` fails when the change would put startDate after dueDate: either may be sent
 * alone, and startDate null clears it.
 */
function datesOrdered(patch: TaskValues) {
  if (patch.startDate === undefined && patch.dueDate === undefined) return [];
  const start = patch.startDate === undefined ? sql`${l.startDate}` : sql`${patch.startDate}::date`;
  const due = patch.dueDate === undefined ? sql`${l.dueDate}` : sql`${patch.dueDate}::date`;
  return [{ name: RULES.dates_ordered, holds: sql`${start} is null or ${start} <= ${due}` }];
}

export function updateTask(db: Database, actor: Actor, id: string, patch: TaskValues, ifMatch: number | null) {
  return updateRecord(db, actor, taskResource, { id, patch, ifMatch, ...updateChecks(patch) });
}

/** PUT by external id: a new task is checked as a create; an existing one as a change, in its own project. */
export function upsertTask(db: Database, actor: Actor, externalId: string, values: NewTask, ifMatch: number | null) {
  const { fresh, ...update } = updateChecks(values);
  return upsertRecord(db, actor, taskResource, {
    externalId,
    values,
    fixed: ["projectId"],
    ifMatch,
    create: { references: createReferences(values) },
    update,
    fresh,
  });
}

/**
 * "Task `id` is blocked by `blocker`": a change of the task's blockedBy, refused if it would close
 * a cycle (or the check could not decide within the request's links), or if either task is at its
 * limit (MAX_BLOCKERS, MAX_BLOCKING).
 */
export function addDependency(db: Database, actor: Actor, id: string, blocker: string, ifMatch: number | null) {
  return updateRecord(db, actor, taskResource, {
    id,
    patch: {
      blockedBy: sql`(case when ${blocker}::uuid = any(${l.blockedBy}) then ${l.blockedBy} else array_append(${l.blockedBy}, ${blocker}::uuid) end)`,
    },
    ifMatch,
    references: [
      { field: "blockedBy", exists: sql`exists (select 1 from ${tasks} b where b.org_id = ${CALLER_ORG} and b.id = ${blocker}::uuid)` },
    ],
    rules: [
      noDependencyCycle(blocker),
      { name: RULES.blockers_limit, holds: sql`${blocker}::uuid = any(${l.blockedBy}) or cardinality(${l.blockedBy}) < ${MAX_BLOCKERS}` },
      blockingLimit(blocker),
    ],
    fresh: true,
  });
}

/** "Task `id` is no longer blocked by `blocker`"; `dependency_exists` fails when it was not. */
export function removeDependency(db: Database, actor: Actor, id: string, blocker: string, ifMatch: number | null) {
  return updateRecord(db, actor, taskResource, {
    id,
    patch: { blockedBy: sql`array_remove(${l.blockedBy}, ${blocker}::uuid)` },
    ifMatch,
    references: [],
    rules: [{ name: RULES.dependency_exists, holds: sql`${blocker}::uuid = any(${l.blockedBy})` }],
  });
}

/**
 * A cascade taking the record `changed` names (a deleted task, a deleted label) out of the array
 * `field` of every task holding it: a task.updated event each, with that field's from and to.
 * The tasks holding it are found through the array's GIN index alone, once (as a condition
 * `t.id in (...)` it was a subplan run for every task of the organisation, after a scan of every
 * task of every organisation: 2.6 s of a label's delete from 5 000 tasks).
 */
export function takenOffTasks(name: string, field: "blockedBy" | "labelIds"): Cascade {
  const column = sql.raw(field === "blockedBy" ? "blocked_by" : "label_ids");
  const holding = (id: SQL) => sql`(select x.id, x.org_id from ${tasks} x where x.${column} @> array[${id}] offset 0)`;
  return {
    name,
    resource: taskResource,
    action: "updated",
    body: sql`update ${tasks} t
         set ${column} = array_remove(t.${column}, c.id), version = t.version + 1, updated_at = now()
        from changed c cross join lateral ${holding(sql`c.id`)} h, ${tasks} o
       where t.id = h.id and t.org_id = c.org_id and h.org_id = c.org_id and o.id = t.id
      returning t.*, jsonb_build_object(${field}::text, jsonb_build_object('from', to_jsonb(o.${column}), 'to', to_jsonb(t.${column}))) as event_changes`,
    count: (upTo) => sql`select count(*) from (select 1 from ${holding(sql`l.id`)} h where h.org_id = l.org_id limit ${upTo}) n`,
  };
}

/** A cascade deleting the records kept under the deleted task (its comments, its checklist), each with its .deleted event. */
function deletedWithTask(name: string, resource: Resource): Cascade {
  const { table } = resource;
  return {
    name,
    resource,
    action: "deleted",
    body: sql`delete from ${table} m using changed c where m.org_id = c.org_id and m.task_id = c.id returning m.*`,
    count: (upTo) => sql`select count(*) from (select 1 from ${table} m where m.org_id = l.org_id and m.task_id = l.id limit ${upTo}) n`,
  };
}

/**
 * What goes with a deleted task, each with its event: it leaves the blockedBy of the tasks it
 * blocked (task.updated with changes.blockedBy), and its comments and checklist items are deleted
 * (comment.deleted, checklistItem.deleted).
 */
const taskDeleteCascades: Cascade[] = [
  takenOffTasks("unblocked", "blockedBy"),
  // Its files and its comments' files first: their events come before the comments' own.
  filesOf("task"),
  filesOfTaskComments,
  deletedWithTask("uncommented", commentResource),
  deletedWithTask("unchecklisted", checklistItemResource),
];

/** A task with subtasks is not deleted (they would lose their parent): move or delete them first. */
export function deleteTask(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, taskResource, {
    id,
    ifMatch,
    blockers: [{ name: "subtasks", count: sql`select count(*) from ${tasks} s where s.org_id = ${l.orgId} and s.parent_id = ${l.id}` }],
    cascades: taskDeleteCascades,
    fresh: true,
  });
}
