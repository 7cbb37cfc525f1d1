// The vocabulary of each record: the values its enumerated fields take and the rules between
// them. The tables (db/schema), the public schemas (functions/schemas) and the statements all
// take their lists from here, so a new status is written once.

export const PROJECT_STATUSES = ["planned", "active", "on_hold", "completed", "cancelled"] as const;
export const MILESTONE_STATUSES = ["open", "done", "cancelled"] as const;

export const TASK_STATUSES = ["todo", "in_progress", "blocked", "done", "cancelled"] as const;
export const TASK_PRIORITIES = ["low", "medium", "high", "urgent"] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The task workflow: from each status, the statuses a change may move it to. Staying put is always allowed. */
export const TASK_TRANSITIONS: Record<TaskStatus, readonly TaskStatus[]> = {
  todo: ["in_progress", "cancelled"],
  in_progress: ["todo", "blocked", "done", "cancelled"],
  blocked: ["in_progress", "cancelled"],
  done: ["in_progress"],
  cancelled: ["todo"],
};

export const RISK_LEVELS = ["low", "medium", "high"] as const;
export const RISK_STATUSES = ["open", "mitigated", "closed"] as const;

export const ISSUE_SEVERITIES = ["low", "medium", "high", "critical"] as const;
export const ISSUE_STATUSES = ["open", "in_progress", "resolved", "closed"] as const;

/**
 * cost: money spent on the project; invoice: billed for it; payment: received against invoices;
 * adjustment: a signed correction to costs. Only an adjustment may be negative; none is zero.
 */
export const FINANCIAL_ENTRY_KINDS = ["cost", "invoice", "payment", "adjustment"] as const;

/** What became of one attempt to deliver an event to a webhook. */
export const DELIVERY_OUTCOMES = ["succeeded", "retrying", "failed"] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** Subtasks nest at most this deep: a task without a parent is level 1, its subtasks level 2. */
export const MAX_TASK_DEPTH = 5;

/** The statuses in which a task no longer holds anything up: a blocker or a subtask in one is not open. */
export const CLOSED_TASK_STATUSES = ["done", "cancelled"] as const satisfies readonly TaskStatus[];

/** A label's colour: #rrggbb. */
export const LABEL_COLOUR_PATTERN = "^#[0-9a-fA-F]{6}$";

/** A comment's body: plain text or Markdown, stored as sent. */
export const COMMENT_MAX_LENGTH = 10_000;
