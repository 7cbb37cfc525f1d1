import { sql } from "drizzle-orm";
import type { CreateMilestoneInput, UpdateMilestoneInput } from "../../functions/schemas/milestones.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { notFound, settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type ResourceDef } from "./records.ts";

export const milestoneResource: ResourceDef = {
  table: "milestones",
  type: "milestone",
  readScope: "projects.read",
  manageScope: "projects.manage",
  columns: [
    { key: "projectId", column: "project_id", kind: "uuid" },
    { key: "name", column: "name", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "dueDate", column: "due_date", kind: "date" },
    { key: "status", column: "status", kind: "text" },
  ],
};

export async function listMilestones(db: Database, actor: Actor, projectId: string, page: PageRequest, filters: { status?: string[] | undefined }) {
  const filterSql = [sql`r.project_id = ${projectId}::uuid`];
  if (filters.status) filterSql.push(sql`r.status = any(${sql.param(filters.status)}::text[])`);
  const list = await listRecords(db, actor, milestoneResource, { ...page, filters: filterSql, parent: { table: "projects", id: projectId } });
  if (!list.parentFound) throw notFound("project");
  return list;
}

export function getMilestone(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, milestoneResource, id);
}

export async function createMilestone(
  db: Database,
  actor: Actor,
  input: CreateMilestoneInput & { projectId: string },
  idempotency?: IdempotencyRequest,
) {
  const outcome = await createRecord(db, actor, milestoneResource, {
    values: input,
    references: [],
    parent: { table: "projects", id: input.projectId },
    idempotency,
  });
  return settleCreate(outcome, "project", idempotency);
}

export async function updateMilestone(db: Database, actor: Actor, id: string, patch: UpdateMilestoneInput, ifMatch: number | null) {
  return settleUpdate(await updateRecord(db, actor, milestoneResource, { id, patch, ifMatch, references: [], rules: [] }), "milestone");
}

export async function deleteMilestone(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  const outcome = await deleteRecord(db, actor, milestoneResource, {
    id,
    ifMatch,
    blockers: [{ name: "tasks", count: sql`select count(*) from tasks t where t.org_id = l.org_id and t.milestone_id = l.id` }],
  });
  return settleDelete(outcome, "milestone");
}
