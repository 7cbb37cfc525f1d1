import type {
  CycleViolation,
  OpenBlockersViolation,
  OpenSubtasksViolation,
  ParentCycleViolation,
  ParentDepthViolation,
} from "../task-graph.ts";
import type { CascadeViolation } from "./delete.ts";

// The names by which a write statement reports what refused it, shared with the services that
// settle each into its error (services/settle.ts): the rules over the locked row (write-ctes.ts
// Rule) and the checks named after a field (write-ctes.ts Reference). Statements declare them by
// these constants and services key their errors by them, so a misspelt name on either side is a
// compile error, not a 500 at run time. Each name is also the column of the statement's `checks`
// (or `refs`) row that reports it.

/** The rules a write checks on its locked row; each holds, or the write is refused. */
export const RULES = {
  /** A task's status change is a move of the workflow (domain/records.ts TASK_TRANSITIONS). */
  transition: "transition",
  /** A task moving to done has no open blocker (task-graph.ts). */
  blockers_closed: "blockers_closed",
  /** A task moving to done has no open subtask, at any depth (task-graph.ts). */
  subtasks_closed: "subtasks_closed",
  /** A new parent is not the task itself nor one of its subtasks (task-graph.ts). */
  parent_acyclic: "parent_acyclic",
  /** Under a new parent, the task's deepest subtask stays within MAX_TASK_DEPTH (task-graph.ts). */
  parent_depth: "parent_depth",
  /** A new dependency closes no cycle (task-graph.ts). */
  acyclic: "acyclic",
  /** A task is blocked by at most MAX_BLOCKERS tasks (tasks.ts). */
  blockers_limit: "blockers_limit",
  /** A task blocks at most MAX_BLOCKING tasks (task-graph.ts). */
  blocking_limit: "blocking_limit",
  /** The dependency being removed is there (tasks.ts). */
  dependency_exists: "dependency_exists",
  /** The caller wrote the comment, or is an owner or admin (comments.ts). */
  author: "author",
  /** A project's endDate is not before its startDate (projects.ts); a task's startDate is not after its dueDate (tasks.ts). */
  dates_ordered: "dates_ordered",
  /** Only an adjustment may be negative (financial-entries.ts). */
  sign_fits_kind: "sign_fits_kind",
  /** The caller holds every read scope the webhook carries (webhooks.ts). */
  scopes_held: "scopes_held",
  /** A webhook an application registered turns back on only while that application is installed (webhooks.ts). */
  installation_live: "installation_live",
  /** An attachment is deleted under the record it is attached to (attachments.ts). */
  on_parent: "on_parent",
  /** A delete's cascades fit in what the request has left of CASCADE_RECORDS (delete.ts). */
  cascade_records: "cascade_records",
} as const;

export type RuleName = (typeof RULES)[keyof typeof RULES];

/**
 * What a rule with a `violation` reports when it fails, as its SQL builds it (beside which each
 * type is declared); null for a rule that only holds or fails.
 */
export interface RuleViolations {
  blockers_closed: OpenBlockersViolation;
  subtasks_closed: OpenSubtasksViolation;
  parent_acyclic: ParentCycleViolation;
  parent_depth: ParentDepthViolation;
  acyclic: CycleViolation;
  cascade_records: CascadeViolation;
  transition: null;
  blockers_limit: null;
  blocking_limit: null;
  dependency_exists: null;
  author: null;
  dates_ordered: null;
  sign_fits_kind: null;
  scopes_held: null;
  installation_live: null;
  on_parent: null;
}

/** What a statement that checks the rules `Name` reports of those that failed with a `violation`. */
export type ViolationsOf<Name extends RuleName> = { [Rule in Name]?: RuleViolations[Rule] };

/**
 * The checks named after a field (write-ctes.ts Reference): a reference to another record of the
 * organisation (answered 400 invalid_reference), or a value or room another record has taken
 * (409 conflict): the externalId, a person's email, a label's name, a parent already at
 * MAX_TASK_DEPTH (parentDepth) or holding MAX_SUBTASKS (parentSubtasks), a task holding
 * MAX_COMMENTS_PER_TASK comments (taskComments) or MAX_CHECKLIST_ITEMS_PER_TASK checklist items
 * (taskChecklistItems).
 */
export type CheckedField =
  | "projectId"
  | "assigneeId"
  | "milestoneId"
  | "ownerId"
  | "reporterId"
  | "parentId"
  | "labelIds"
  | "blockedBy"
  | "taskId"
  | "externalId"
  | "email"
  | "name"
  | "parentDepth"
  | "parentSubtasks"
  | "taskComments"
  | "taskChecklistItems"
  | "size";
