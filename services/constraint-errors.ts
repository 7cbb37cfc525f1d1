import { DomainError } from "../domain/errors.ts";

// Validation refuses bad input before SQL runs; these are the races it cannot see (a project
// deleted between the check and the insert, two people created with one email at once). The
// database's constraints (db/schema) are the last word, and each maps to the error the service
// would have given.
const CONSTRAINTS: Record<string, DomainError> = {
  personnel_org_email_key: new DomainError("conflict", "a person with this email already exists in the organisation", { field: "email" }),
  tasks_project_fk: new DomainError("invalid_reference", "projectId does not name a project of this organisation", { field: "projectId" }),
  tasks_assignee_fk: new DomainError("invalid_reference", "assigneeId does not name a person of this organisation", { field: "assigneeId" }),
  tasks_milestone_fk: new DomainError("invalid_reference", "milestoneId does not name a milestone of the task's project", { field: "milestoneId" }),
  milestones_project_fk: new DomainError("not_found", "project not found"),
  risks_project_fk: new DomainError("invalid_reference", "projectId does not name a project of this organisation", { field: "projectId" }),
  risks_owner_fk: new DomainError("invalid_reference", "ownerId does not name a person of this organisation", { field: "ownerId" }),
  issues_project_fk: new DomainError("invalid_reference", "projectId does not name a project of this organisation", { field: "projectId" }),
  issues_reporter_fk: new DomainError("invalid_reference", "reporterId does not name a person of this organisation", { field: "reporterId" }),
  issues_assignee_fk: new DomainError("invalid_reference", "assigneeId does not name a person of this organisation", { field: "assigneeId" }),
  financial_entries_project_fk: new DomainError("invalid_reference", "projectId does not name a project of this organisation", { field: "projectId" }),
  tasks_parent_fk: new DomainError("invalid_reference", "parentId does not name a task of the task's project", { field: "parentId" }),
  comments_task_fk: new DomainError("not_found", "task not found"),
  labels_org_name_key: new DomainError("conflict", "another label of this organisation has this name", { field: "name" }),
  ...Object.fromEntries(
    ["projects", "milestones", "tasks", "personnel", "risks", "issues", "financial_entries", "labels", "comments"].map((table) => [
      `${table}_org_external_id_key`,
      new DomainError("conflict", "another record of this organisation already has this externalId", { field: "externalId" }),
    ]),
  ),
  projects_dates_ordered: new DomainError("invalid_field", "endDate must not be before startDate", { field: "endDate" }),
  projects_budget_non_negative: new DomainError("invalid_field", "budget must be 0 or more", { field: "budget" }),
};

interface PostgresError {
  code?: string;
  constraint?: string;
}

/**
 * A constraint violation becomes its domain error; anything else is passed on unchanged.
 * `deleting`: a foreign key failing on a delete means a dependant appeared concurrently.
 */
export function translateConstraintError(error: unknown, deleting: boolean): unknown {
  const { code, constraint } = (error ?? {}) as PostgresError;
  if (code === "40001" || code === "40P01") {
    return new DomainError("conflict", "the record was changed by a concurrent request; retry");
  }
  if (deleting && code === "23503") return new DomainError("conflict", "the record still has dependants; remove them first");
  const known = code?.startsWith("23") && constraint ? CONSTRAINTS[constraint] : undefined;
  return known ? new DomainError(known.code, known.message, known.details) : error;
}

/** Runs a write statement, turning a violated constraint into the error the service would have given. */
export async function guarded<T>(statement: Promise<T>, options: { deleting?: boolean } = {}): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    throw translateConstraintError(error, options.deleting ?? false);
  }
}
