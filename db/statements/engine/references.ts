import type { PgTable } from "drizzle-orm/pg-core";
import { milestones, personnel, projects, tasks } from "../../schema/index.ts";
import { CALLER_ORG } from "./caller.ts";
import type { CheckedField } from "./rules.ts";
import { sql } from "./sql-tag.ts";
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

/** `taskId` names a task of the organisation (a comment's or checklist item's PUT by external id names it in the body). */
export const taskOfOrganisation = (taskId: string): Reference => ({
  field: "taskId",
  exists: sql`exists (select 1 from ${tasks} t where t.org_id = ${CALLER_ORG} and t.id = ${taskId}::uuid)`,
});

/** The project of the organisation's task `taskId`: what a record kept under a task (a comment, a checklist item) takes from it. */
export const projectOfTask = (taskId: string) =>
  sql`(select t.project_id from ${tasks} t where t.org_id = ${CALLER_ORG} and t.id = ${taskId}::uuid)`;

/**
 * `field`: the task holds fewer than `limit` rows of `table` (its comments, its checklist), counted
 * no further. A write checking it runs after every write before it (WriteStatement.lockFirst), so
 * concurrent ones cannot take a task past the limit, which bounds what its delete takes with it.
 */
export function taskHasRoom(field: CheckedField, table: PgTable, taskId: string, limit: number): Reference {
  const most = sql.raw(String(limit));
  return {
    field,
    exists: sql`(select count(*) from (select 1 from ${table} m where m.org_id = ${CALLER_ORG} and m.task_id = ${taskId}::uuid limit ${most}) n) < ${most}`,
  };
}
