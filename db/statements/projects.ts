import { sql } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { PageRequest } from "../../domain/paging.ts";
import type { Database } from "../client.ts";
import { financialEntries, issues, milestones, projects, risks, tasks } from "../schema/index.ts";
import { createRecord } from "./create.ts";
import { deleteRecord } from "./delete.ts";
import type { IdempotencyRequest } from "./idempotency.ts";
import { getRecord, listRecords } from "./read.ts";
import { defineResource, type FieldsOf, type RecordOf } from "./resource.ts";
import { updateRecord } from "./update.ts";
import { upsertRecord } from "./upsert.ts";

export const projectResource = defineResource(projects, { type: "project", readScope: "projects.read", manageScope: "projects.manage" });
export type ProjectRecord = RecordOf<typeof projectResource>;
export type ProjectValues = FieldsOf<typeof projectResource>;
export type NewProject = ProjectValues & Pick<ProjectRecord, "name" | "budget" | "startDate" | "endDate">;

const { row: r, locked: l } = projectResource;

export function listProjects(db: Database, actor: Actor, page: PageRequest, filters: { externalId?: string | undefined; status?: string[] | undefined }) {
  return listRecords(db, actor, projectResource, {
    page,
    filters: filters.status ? [sql`${r.status} = any(${sql.param(filters.status)}::text[])`] : [],
    externalId: filters.externalId,
  });
}

export function getProject(db: Database, actor: Actor, id: string) {
  return getRecord(db, actor, projectResource, id);
}

export function createProject(db: Database, actor: Actor, values: NewProject, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, projectResource, { values, references: [], idempotency });
}

/** `dates_ordered` fails when the change would put endDate before startDate (either may be sent alone). */
export function updateProject(db: Database, actor: Actor, id: string, patch: ProjectValues, ifMatch: number | null) {
  return updateRecord(db, actor, projectResource, { id, patch, ifMatch, ...updateChecks(patch) });
}

function updateChecks(patch: ProjectValues) {
  return {
    references: [],
    rules: [{ name: "dates_ordered", holds: sql`coalesce(${patch.endDate ?? null}::date, ${l.endDate}) >= coalesce(${patch.startDate ?? null}::date, ${l.startDate})` }],
  };
}

export function upsertProject(db: Database, actor: Actor, externalId: string, values: NewProject, ifMatch: number | null) {
  return upsertRecord(db, actor, projectResource, { externalId, values, ifMatch, create: { references: [] }, update: updateChecks(values) });
}

/** A project is not deleted while anything points at it; money recorded against it least of all. */
export function deleteProject(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  const dependants = { milestones, tasks, risks, issues, financialEntries };
  return deleteRecord(db, actor, projectResource, {
    id,
    ifMatch,
    blockers: Object.entries(dependants).map(([name, table]) => ({
      name,
      count: sql`select count(*) from ${table} where ${table.orgId} = ${l.orgId} and ${table.projectId} = ${l.id}`,
    })),
  });
}
