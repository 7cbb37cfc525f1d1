import { getTableName } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { searchVector } from "../schema/columns.ts";
import { financialEntries, issues, milestones, projects, risks, tasks } from "../schema/index.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import type { Expansion } from "./engine/projection.ts";
import { defineResource, derived, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";

/** The tasks of a project or milestone counted by status, as its `progress`. */
export interface Progress {
  total: number;
  done: number;
  cancelled: number;
  open: number;
  /** done / (total - cancelled), in whole percent rounded down (100 only when every task is done); 0 with no task counted. */
  percentDone: number;
}

/** The keys of `progress`, in the order they are answered. */
export const PROGRESS_KEYS = ["total", "done", "cancelled", "open", "percentDone"] as const;

/** The progress roll-up over the tasks whose `column` is the row `alias`'s id (read from the index alone). */
export function progressOf(alias: string, column: "project_id" | "milestone_id"): string {
  return `(select json_build_object('total', p.total, 'done', p.done, 'cancelled', p.cancelled, 'open', p.total - p.done - p.cancelled,
      'percentDone', case when p.total - p.cancelled > 0 then floor(100.0 * p.done / (p.total - p.cancelled))::int else 0 end)
    from (select count(*)::int as total, count(*) filter (where t.status = 'done')::int as done, count(*) filter (where t.status = 'cancelled')::int as cancelled
            from ${getTableName(tasks)} t where t.org_id = ${alias}.org_id and t.${column} = ${alias}.id) p)`;
}

export const projectResource = defineResource(RESOURCES.project, projects, {
  derived: { progress: derived<Progress>((a) => sql.raw(progressOf(a, "project_id")), PROGRESS_KEYS) },
  search: (a) => searchVector(sql.raw(`${a}.name`), sql.raw(`${a}.description`)),
});
export type ProjectRecord = RecordOf<typeof projectResource>;
export type ProjectValues = FieldsOf<typeof projectResource>;
export type NewProject = ProjectValues & Pick<ProjectRecord, "name" | "budget" | "startDate" | "endDate">;

const { locked: l } = projectResource;

/** ?expand=project on the records of a project (milestones, tasks, risks, issues, financial entries): the project's own fields. */
export const PROJECT_EXPANSION: Record<string, Expansion> = {
  project: { name: "project", resource: projectResource, column: "project_id", scope: "projects.read" },
};

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
    rules: [
      {
        name: RULES.dates_ordered,
        holds: sql`coalesce(${patch.endDate ?? null}::date, ${l.endDate}) >= coalesce(${patch.startDate ?? null}::date, ${l.startDate})`,
      },
    ],
  };
}

export function upsertProject(db: Database, actor: Actor, externalId: string, values: NewProject, ifMatch: number | null) {
  return upsertRecord(db, actor, projectResource, {
    externalId,
    values,
    ifMatch,
    create: { references: [] },
    update: updateChecks(values),
  });
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
