import { sql, type SQL } from "drizzle-orm";
import { ApiError } from "../../functions/errors.ts";
import { TASK_TRANSITIONS, type CreateTaskInput, type ListTasksFilters, type TaskStatus, type UpdateTaskInput } from "../../functions/schemas/tasks.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type Reference, type ResourceDef } from "./records.ts";

export const taskResource: ResourceDef = {
  table: "tasks",
  type: "task",
  readScope: "tasks.read",
  manageScope: "tasks.manage",
  columns: [
    { key: "projectId", column: "project_id", kind: "uuid" },
    { key: "assigneeId", column: "assignee_id", kind: "uuid" },
    { key: "milestoneId", column: "milestone_id", kind: "uuid" },
    { key: "title", column: "title", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "status", column: "status", kind: "text" },
    { key: "priority", column: "priority", kind: "text" },
    { key: "dueDate", column: "due_date", kind: "date" },
  ],
};

export function listTasks(db: Database, actor: Actor, page: PageRequest, f: Omit<ListTasksFilters, "limit" | "cursor">) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`r.project_id = ${f.projectId}::uuid`);
  if (f.assigneeId) filters.push(sql`r.assignee_id = ${f.assigneeId}::uuid`);
  if (f.milestoneId) filters.push(sql`r.milestone_id = ${f.milestoneId}::uuid`);
  if (f.status) filters.push(sql`r.status = any(${sql.param(f.status)}::text[])`);
  if (f.priority) filters.push(sql`r.priority = any(${sql.param(f.priority)}::text[])`);
  if (f.dueBefore) filters.push(sql`r.due_date < ${f.dueBefore}::date`);
  if (f.dueAfter) filters.push(sql`r.due_date > ${f.dueAfter}::date`);
  if (f.updatedSince) filters.push(sql`r.updated_at >= ${f.updatedSince}::timestamptz`);
  return listRecords(db, actor, taskResource, { ...page, filters });
}

export function getTask(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, taskResource, id);
}

/** `unchanged`: on updates, resending the current assignee is fine even if they left since. */
const assigneeIsActive = (id: string, unchanged: SQL = sql`false`): Reference => ({
  field: "assigneeId",
  exists: sql`${unchanged} or exists (select 1 from personnel x where x.org_id = auth.org_id and x.id = ${id}::uuid and x.active)`,
});

/** `project` is SQL naming the task's project: the new one on create, the locked row's on update. */
const milestoneInProject = (id: string, project: SQL): Reference => ({
  field: "milestoneId",
  exists: sql`exists (select 1 from milestones m where m.org_id = auth.org_id and m.project_id = ${project} and m.id = ${id}::uuid)`,
});

export async function createTask(db: Database, actor: Actor, input: CreateTaskInput, idempotency?: IdempotencyRequest) {
  const references: Reference[] = [
    { field: "projectId", exists: sql`exists (select 1 from projects p where p.org_id = auth.org_id and p.id = ${input.projectId}::uuid)` },
    assigneeIsActive(input.assigneeId),
  ];
  if (input.milestoneId) references.push(milestoneInProject(input.milestoneId, sql`${input.projectId}::uuid`));
  return settleCreate(await createRecord(db, actor, taskResource, { values: input, references, idempotency }), "task", idempotency);
}

// The workflow as SQL pairs, so the check runs on the locked row inside the statement.
const transitionPairs = sql.join(
  Object.entries(TASK_TRANSITIONS).flatMap(([from, targets]) => targets.map((to) => sql`(${from}, ${to})`)),
  sql`, `,
);

export async function updateTask(db: Database, actor: Actor, id: string, patch: UpdateTaskInput, ifMatch: number | null) {
  const references: Reference[] = [];
  if (patch.assigneeId) references.push(assigneeIsActive(patch.assigneeId, sql`l.assignee_id = ${patch.assigneeId}::uuid`));
  if (patch.milestoneId) references.push(milestoneInProject(patch.milestoneId, sql`l.project_id`));
  const rules = patch.status
    ? [{ name: "transition", holds: sql`l.status = ${patch.status} or (l.status, ${patch.status}::text) in (${transitionPairs})` }]
    : [];
  const outcome = await updateRecord(db, actor, taskResource, { id, patch, ifMatch, references, rules });
  return settleUpdate(outcome, "task", {
    transition: (before) => {
      const from = before.status as TaskStatus;
      const allowed = [...TASK_TRANSITIONS[from]];
      return new ApiError("invalid_transition", `a task cannot move from ${from} to ${patch.status}; allowed: ${allowed.join(", ")}`, {
        field: "status",
        from,
        allowed,
      });
    },
  });
}

export async function deleteTask(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return settleDelete(await deleteRecord(db, actor, taskResource, { id, ifMatch, blockers: [] }), "task");
}
