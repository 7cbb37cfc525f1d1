import type { Actor } from "../../domain/actor.ts";
import { RESOURCES } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { milestones, projects, tasks } from "../schema/index.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { projectOfOrganisation } from "./engine/references.ts";
import { defineResource, derived, type FieldsOf, type RecordOf } from "./engine/resource.ts";
import { sql } from "./engine/sql-tag.ts";
import { updateRecord } from "./engine/update.ts";
import { upsertRecord } from "./engine/upsert.ts";
import { PROGRESS_KEYS, PROJECT_EXPANSION, progressOf, type Progress } from "./projects.ts";

export const milestoneResource = defineResource(RESOURCES.milestone, milestones, {
  parent: projects,
  derived: { progress: derived<Progress>((a) => sql.raw(progressOf(a, "milestone_id")), PROGRESS_KEYS) },
  expansions: PROJECT_EXPANSION,
});
export type MilestoneRecord = RecordOf<typeof milestoneResource>;
export type MilestoneValues = FieldsOf<typeof milestoneResource>;
export type NewMilestone = MilestoneValues & Pick<MilestoneRecord, "projectId" | "name" | "dueDate">;

const { locked: l } = milestoneResource;

export function createMilestone(db: Database, actor: Actor, values: NewMilestone, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, milestoneResource, { values, references: [], idempotency });
}

export function updateMilestone(db: Database, actor: Actor, id: string, patch: MilestoneValues, ifMatch: number | null) {
  return updateRecord(db, actor, milestoneResource, { id, patch, ifMatch, references: [], rules: [] });
}

/** PUT by external id: the body names the project (a new milestone is created under it; an existing one must be in it). */
export function upsertMilestone(db: Database, actor: Actor, externalId: string, values: NewMilestone, ifMatch: number | null) {
  return upsertRecord(db, actor, milestoneResource, {
    externalId,
    values,
    fixed: ["projectId"],
    ifMatch,
    // The project is named in the body here, not the path: a foreign one is an invalid reference.
    create: { references: [projectOfOrganisation(values.projectId)] },
    update: { references: [], rules: [] },
  });
}

export function deleteMilestone(db: Database, actor: Actor, id: string, ifMatch: number | null) {
  return deleteRecord(db, actor, milestoneResource, {
    id,
    ifMatch,
    blockers: [
      { name: "tasks", count: sql`select count(*) from ${tasks} where ${tasks.orgId} = ${l.orgId} and ${tasks.milestoneId} = ${l.id}` },
    ],
  });
}
