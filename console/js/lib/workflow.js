// @ts-check
// The task workflow, as the API enforces it (domain/records.ts, generated into domain.generated.js).
// The console offers only these moves; the API still has the last word (409).

import { TASK_STATUSES, TASK_TRANSITIONS } from "./domain.generated.js";

export { TASK_STATUSES, TASK_TRANSITIONS };

/** @type {Record<string, string>} */
export const STATUS_LABELS = {
  todo: "To do",
  in_progress: "In progress",
  blocked: "Blocked",
  done: "Done",
  cancelled: "Cancelled",
};

/** @param {string} from @param {string} to */
export const canMove = (from, to) => (TASK_TRANSITIONS[from] ?? []).includes(to);

/** @param {string} status */
export const labelOf = (status) => STATUS_LABELS[status] ?? status;
