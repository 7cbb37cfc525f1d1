import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { PageRequest } from "../../domain/paging.ts";
import { TASK_TRANSITIONS, type TaskStatus } from "../../domain/records.ts";
import type { Database } from "../client.ts";
import { tasks } from "../schema/index.ts";
import { createRecord } from "./create.ts";
import { deleteRecord } from "./delete.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { getRecord, listRecords } from "./read.ts";
import { activePerson, milestoneOfProject, projectOfOrganisation } from "./references.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./resource.ts";
import { updateRecord } from "./update.ts";
import { upsertRecord } from "./upsert.ts";
import type { Reference } from "./write-ctes.ts";

export const taskResource = defineResource(tasks, { type: "task", readScope: "tasks.read", manageScope: "tasks.manage" });
export type TaskRecord = RecordOf<typeof taskResource>;
export type TaskValues = FieldsOf<typeof taskResource>;
export type NewTask = TaskValues & Pick<TaskRecord, "projectId" | "assigneeId" | "dueDate" | "title">;

const { row: r, locked: l } = taskResource;

export interface TaskFilters {
  externalId?: string | undefined;
  projectId?: string | undefined;
  assigneeId?: string | undefined;
  milestoneId?: string | undefined;
  status?: TaskStatus[] | undefined;
  priority?: string[] | undefined;
  /** Strictly before this date. */
  dueBefore?: string | undefined;
  /** Strictly after this date. */
  dueAfter?: string | undefined;
  /** Changed at or after this instant. */
  updatedSince?: string | undefined;
}

export function listTasks(db: Database, actor: Actor, page: PageRequest, f: TaskFilters) {
  const filters: SQL[] = [];
  if (f.projectId) filters.push(sql`${r.projectId} = ${f.projectId}::uuid`);
  if (f.assigneeId) filters.push(sql`${r.assigneeId} = ${f.assigneeId}::uuid`);
  if (f.milestoneId) filters.push(sql`${r.milestoneId} = ${f.milestoneId}::uuid`);
  if (f.status) filters.push(sql`${r.status} = any(${sql.param(f.status)}::text[])`);
  if (f.priority) filters.push(sql`${r.priority} = any(${sql.param(f.priority)}::text[])`);
  if (f.dueBefore) filters.push(sql`${r.dueDate} < ${f.dueBefore}::date`);
  if (f.dueAfter) filters.push(sql`${r.dueDate} > ${f.dueAfter}::date`);
  if (f.updatedSince) filters.push(sql`${r.updatedAt} >= ${f.updatedSince}::timestamptz`);
  return listRecords(db, actor, taskResource, { page, filters, externalId: f.externalId });
}

export function getTask(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, taskResource, id);
}

function createReferences(values: NewTask): Reference[] {
  const references: Reference[] = [projectOfOrganisation(values.projectId), activePerson("assigneeId", values.assigneeId)];
  if (values.milestoneId) references.push(milestoneOfProject(values.milestoneId, sql`${values.projectId}::uuid`));
  return references;
}

export function createTask(db: Database, actor: Actor, values: NewTask, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, taskResource, { values, references: createReferences(values), idempotency });
}

// The workflow as SQL pairs, so the check runs on the locked row inside the statement.
const transitionPairs = sql.join(
  Object.entries(TASK_TRANSITIONS).flatMap(([from, targets]) => targets.map((to) => sql`(${from}, ${to})`)),
  sql`, `,
);

/** The rules a task change is checked against; `transition` fails for a move outside the workflow. */
function updateChecks(patch: TaskValues) {
  const references: Reference[] = [];
  // Resending the current assignee is fine even if they left since.
  if (patch.assigneeId) {
    const assignee = activePerson("assigneeId", patch.assigneeId);
    references.push({ ...assignee, exists: sql`${l.assigneeId} = ${patch.assigneeId}::uuid or ${assignee.exists}` });
  }
  if (patch.milestoneId) references.push(milestoneOfProject(patch.milestoneId, sql`${l.projectId}`));
  const rules = patch.status ? [{ name: "transition", holds: sql`${l.status} = ${patch.status} or (${l.status}, ${patch.status}::text) in (${transitionPairs})` }] : [];
  return { references, rules };
}

export function updateTask(db: Database, actor: Actor, id: string, patch: TaskValues, ifMatch: number | null) {
  return updateRecord(db, actor, taskResource, { id, patch, ifMatch, ...updateChecks(patch) });
}

/** PUT by external id: a new task is checked as a create; an existing one as a change, in its own project. */
export function upsertTask(db: Database, actor: Actor, externalId: string, values: NewTask, ifMatch: number | null) {
  return upsertRecord(db, actor, taskResource, {
    externalId,
    values,
    fixed: ["projectId"],
    ifMatch,
    create: { references: createReferences(values) },
    update: updateChecks(values),
  });
}

export function deleteTask(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, taskResource, { id, ifMatch, blockers: [] });
}
