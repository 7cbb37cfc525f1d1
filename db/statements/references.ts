import { sql } from "drizzle-orm";
import { milestones, personnel, projects } from "../schema/index.ts";
import { CALLER_ORG } from "./caller.ts";
import type { CheckedField } from "./rules.ts";
import type { Reference } from "./write-ctes.ts";

// References checked inside a write statement, against the caller's organisation only. Each is
// named after the body field it is about, so a failure names the field.

export const projectOfOrganisation = (id: string): Reference => ({
  field: "projectId",
  exists: sql`exists (select 1 from ${projects} where ${projects.orgId} = ${CALLER_ORG} and ${projects.id} = ${id}::uuid)`,
});

/** Someone who is handed responsibility (an assignee, an owner) must still be active. */
export const activePerson = (field: CheckedField, id: string): Reference => ({
  field,
  exists: sql`exists (select 1 from ${personnel} where ${personnel.orgId} = ${CALLER_ORG} and ${personnel.id} = ${id}::uuid and ${personnel.active})`,
});

/** Someone named as a fact (who reported an issue) need only be a person of the organisation. */
export const anyPerson = (field: CheckedField, id: string): Reference => ({
  field,
  exists: sql`exists (select 1 from ${personnel} where ${personnel.orgId} = ${CALLER_ORG} and ${personnel.id} = ${id}::uuid)`,
});

/** A milestone of the task's project; `projectId` names it (the new one on create, the locked row's on update). */
export const milestoneOfProject = (id: string, projectId: ReturnType<typeof sql>): Reference => ({
  field: "milestoneId",
  exists: sql`exists (select 1 from ${milestones} where ${milestones.orgId} = ${CALLER_ORG} and ${milestones.projectId} = ${projectId} and ${milestones.id} = ${id}::uuid)`,
});
