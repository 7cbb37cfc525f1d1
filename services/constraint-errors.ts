import { notFound, type DomainError } from "../domain/errors.ts";
import { checkRefusal, concurrentChange, raceRefusals } from "./refusals.ts";

// Validation refuses bad input before SQL runs; these are the races it cannot see (a project
// deleted between the check and the insert, two people created with one email at once). The
// database's constraints (db/schema) are the last word, and each maps to the refusal the service
// would have given (services/refusals.ts).
const CONSTRAINTS: Record<string, () => DomainError> = {
  personnel_org_email_key: () => checkRefusal("email", "person"),
  tasks_project_fk: () => checkRefusal("projectId", "task"),
  tasks_assignee_fk: () => checkRefusal("assigneeId", "task"),
  tasks_milestone_fk: () => checkRefusal("milestoneId", "task"),
  milestones_project_fk: () => notFound("project"),
  risks_project_fk: () => checkRefusal("projectId", "risk"),
  risks_owner_fk: () => checkRefusal("ownerId", "risk"),
  issues_project_fk: () => checkRefusal("projectId", "issue"),
  issues_reporter_fk: () => checkRefusal("reporterId", "issue"),
  issues_assignee_fk: () => checkRefusal("assigneeId", "issue"),
  financial_entries_project_fk: () => checkRefusal("projectId", "financial entry"),
  tasks_parent_fk: () => checkRefusal("parentId", "task"),
  comments_task_fk: () => notFound("task"),
  checklist_items_task_fk: () => notFound("task"),
  labels_org_name_key: () => checkRefusal("name", "label"),
  ...Object.fromEntries(
    ["projects", "milestones", "tasks", "personnel", "risks", "issues", "financial_entries", "labels", "comments", "checklist_items"].map(
      (table) => [`${table}_org_external_id_key`, () => checkRefusal("externalId", "record")],
    ),
  ),
  projects_dates_ordered: raceRefusals.datesOrdered,
  tasks_dates_ordered: raceRefusals.taskDatesOrdered,
  projects_budget_non_negative: raceRefusals.budgetNonNegative,
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
  if (code === "40001" || code === "40P01") return concurrentChange();
  if (deleting && code === "23503") return raceRefusals.dependantAppeared();
  const refusal = code?.startsWith("23") && constraint ? CONSTRAINTS[constraint] : undefined;
  return refusal ? refusal() : error;
}

/** Runs a write statement, turning a violated constraint into the error the service would have given. */
export async function guarded<T>(statement: Promise<T>, options: { deleting?: boolean } = {}): Promise<T> {
  try {
    return await statement;
  } catch (error) {
    throw translateConstraintError(error, options.deleting ?? false);
  }
}
