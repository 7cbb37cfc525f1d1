// @ts-check
// The API's refusals in plain words for the people using the console: what happened and what
// to do, naming tasks by their titles, with the status and code at the end for whoever reports it.

import { labelOf } from "./workflow.js";

/** @typedef {import("./store.js").Store["state"]} State */

/** “Title” (In progress), or "a task this console has not loaded". @param {string} id @param {State} state */
function taskNamed(id, state, withStatus = true) {
  const task = state.tasks.get(id);
  if (!task) return "a task of another project";
  return withStatus ? `“${task.title}” (${labelOf(task.status)})` : `“${task.title}”`;
}

/** "a", "a and b", "a, b and c". @param {string[]} items */
const listed = (items) => (items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`);

/** "(409 open_blockers)". @param {any} error */
const codeOf = (error) => (error?.status ? ` (${error.status} ${error.code})` : "");

/**
 * Any refusal, in words that do not need the task: the sentence and its code.
 * @param {any} error an ApiRefusal, or what fetch threw
 */
export function describeRefusal(error) {
  const status = error?.status;
  if (!status) return "the API could not be reached. Check the connection and try again.";
  const words =
    status === 401
      ? "your session has ended. Sign in again."
      : error.code === "email_unverified"
        ? "this organisation requires a confirmed email address. Reload the page to confirm yours, or to ask for another link."
        : error.code === "insufficient_role"
          ? "only its author, or an owner or admin, may do that."
          : status === 403
            ? "your role does not allow this."
            : status === 404
              ? "it no longer exists: someone may have deleted it."
              : status === 429
                ? "too many requests just now. Wait a moment and try again."
                : status >= 500
                  ? "the API could not do it just now, and nothing was changed. Try again shortly."
                  : `${error.message}.`;
  return `${words}${codeOf(error)}`;
}

/**
 * A refused move of `task` to `to`.
 * @param {any} error @param {any} task @param {string} to @param {State} state
 */
export function describeMoveRefusal(error, task, to, state) {
  const title = `“${task.title}”`;
  /** @type {import("./api.js").RefusalDetails} */
  const details = error?.details ?? {};
  if (error?.code === "open_blockers") {
    const blockers = details.blockers ?? [];
    return `${title} cannot be done yet: it is waiting for ${listed(blockers.map((id) => taskNamed(id, state)))}. Finish or cancel ${blockers.length === 1 ? "that task" : "those tasks"} first, or remove ${blockers.length === 1 ? "it" : "them"} from its dependencies.${codeOf(error)}`;
  }
  if (error?.code === "open_subtasks") {
    const subtasks = details.subtasks ?? [];
    return `${title} cannot be done yet: ${subtasks.length === 1 ? "a subtask is" : `${subtasks.length} subtasks are`} still open: ${listed(subtasks.map((id) => taskNamed(id, state)))}. Finish or cancel ${subtasks.length === 1 ? "it" : "them"} first.${codeOf(error)}`;
  }
  if (error?.code === "invalid_transition") {
    const allowed = (details.allowed ?? []).map(labelOf);
    const now = details.from ? `it is ${labelOf(details.from)} now, and ` : "";
    return `${title} was not moved to ${labelOf(to)}: ${now}can move only to ${listed(allowed) || "nowhere"}.${codeOf(error)}`;
  }
  return `${title} was not moved to ${labelOf(to)}: ${describeRefusal(error)}`;
}

/**
 * A refused "task waits for blocker".
 * @param {any} error @param {any} task @param {string} blockerId @param {State} state
 */
export function describeDependencyRefusal(error, task, blockerId, state) {
  if (error?.code === "dependency_cycle") {
    const path = /** @type {string[]} */ (error.details?.path ?? []);
    const circle =
      path.length > 1
        ? ` (${path.map((id, i) => (i === 0 ? "" : i === 1 ? " waits for " : ", which waits for ") + taskNamed(id, state, false)).join("")})`
        : "";
    return `“${task.title}” cannot wait for ${taskNamed(blockerId, state, false)}: that task already waits for it${circle}, and neither could ever be done.${codeOf(error)}`;
  }
  return `${taskNamed(blockerId, state, false)} was not added as a blocker: ${describeRefusal(error)}`;
}
