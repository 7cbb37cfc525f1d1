import { sql } from "drizzle-orm";
import type { CreateProjectInput, UpdateProjectInput } from "../../functions/schemas/projects.ts";
import { ApiError } from "../../functions/errors.ts";
import type { Database } from "../client.ts";
import type { Actor } from "./actor.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { settleCreate, settleDelete, settleUpdate } from "./outcomes.ts";
import { createRecord, deleteRecord, getRecord, listRecords, updateRecord, type ResourceDef } from "./records.ts";
import type { PageRequest } from "./paging.ts";

export const projectResource: ResourceDef = {
  table: "projects",
  type: "project",
  readScope: "projects.read",
  manageScope: "projects.manage",
  columns: [
    { key: "name", column: "name", kind: "text" },
    { key: "description", column: "description", kind: "text" },
    { key: "budget", column: "budget", kind: "numeric" },
    { key: "startDate", column: "start_date", kind: "date" },
    { key: "endDate", column: "end_date", kind: "date" },
    { key: "status", column: "status", kind: "text" },
  ],
};

export function listProjects(db: Database, actor: Actor, page: PageRequest, filters: { status?: string[] | undefined }) {
  return listRecords(db, actor, projectResource, {
    ...page,
    filters: filters.status ? [sql`r.status = any(${sql.param(filters.status)}::text[])`] : [],
  });
}

export function getProject(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, projectResource, id);
}

export async function createProject(db: Database, actor: Actor, input: CreateProjectInput, idempotency?: IdempotencyRequest) {
  return settleCreate(await createRecord(db, actor, projectResource, { values: input, references: [], idempotency }), "project", idempotency);
}

export async function updateProject(db: Database, actor: Actor, id: string, patch: UpdateProjectInput, ifMatch: number | null) {
  const outcome = await updateRecord(db, actor, projectResource, {
    id,
    patch,
    ifMatch,
    references: [],
    // A patch carrying only one of the dates must still leave them in order.
    rules: [
      {
        name: "dates_ordered",
        holds: sql`coalesce(${patch.endDate ?? null}::date, l.end_date) >= coalesce(${patch.startDate ?? null}::date, l.start_date)`,
      },
    ],
  });
  return settleUpdate(outcome, "project", {
    dates_ordered: (before) =>
      new ApiError("invalid_field", `endDate must not be before startDate (the project runs ${before.startDate} to ${before.endDate})`, {
        field: patch.endDate ? "endDate" : "startDate",
      }),
  });
}

export async function deleteProject(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  const outcome = await deleteRecord(db, actor, projectResource, {
    id,
    ifMatch,
    blockers: [
      { name: "milestones", count: sql`select count(*) from milestones m where m.org_id = l.org_id and m.project_id = l.id` },
      { name: "tasks", count: sql`select count(*) from tasks t where t.org_id = l.org_id and t.project_id = l.id` },
      { name: "risks", count: sql`select count(*) from risks r where r.org_id = l.org_id and r.project_id = l.id` },
      { name: "issues", count: sql`select count(*) from issues i where i.org_id = l.org_id and i.project_id = l.id` },
      // Money recorded against a project is never deleted behind the caller's back.
      { name: "financialEntries", count: sql`select count(*) from financial_entries f where f.org_id = l.org_id and f.project_id = l.id` },
    ],
  });
  return settleDelete(outcome, "project");
}
