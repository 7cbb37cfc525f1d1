// @ts-check
// The task workflow, as the API enforces it (functions/schemas/tasks.ts TASK_TRANSITIONS; a test
// keeps the two equal). The console offers only these moves; the API still has the last word (409).

export const TASK_STATUSES = ["todo", "in_progress", "blocked", "done", "cancelled"];

/** @type {Record<string, string>} */
export const STATUS_LABELS = {
  todo: "To do",
  in_progress: "In progress",
  blocked: "Blocked",
  done: "Done",
  cancelled: "Cancelled",
};

/** @type {Record<string, string[]>} */
export const TASK_TRANSITIONS = {
  todo: ["in_progress", "cancelled"],
  in_progress: ["todo", "blocked", "done", "cancelled"],
  blocked: ["in_progress", "cancelled"],
  done: ["in_progress"],
  cancelled: ["todo"],
};

/** @param {string} from @param {string} to */
export const canMove = (from, to) => (TASK_TRANSITIONS[from] ?? []).includes(to);

/** @param {string} status */
export const labelOf = (status) => STATUS_LABELS[status] ?? status;
