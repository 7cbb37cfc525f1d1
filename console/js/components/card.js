// @ts-check
// One task's card on the board: its title (a button that opens the task's drawer), priority, due
// date and assignee, its labels, a "blocked" badge while any task it waits for is open, its
// subtasks done, and a button for each workflow move allowed from its status.

import { blockersOf, subtaskCounts } from "../lib/derived.js";
import { el } from "../lib/dom.js";
import { labelOf, TASK_TRANSITIONS } from "../lib/workflow.js";
import { labelChips } from "./labels.js";

/** "1 task", "2 tasks". @param {number} n @param {string} noun */
export const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

/**
 * The card's badges: blocked (with the open blockers named in its tooltip) and subtasks.
 * @param {import("../lib/store.js").Record} task @param {import("../lib/store.js").Store["state"]} state
 * @param {{ done: number, count: number }} subtasks
 */
function badges(task, state, subtasks) {
  const parts = [];
  const { open } = blockersOf(task, state);
  if (open.length > 0) {
    parts.push(
      el("span", { class: "badge badge-blocked", title: `Waiting for ${open.map((t) => `“${t.title}”`).join(", ")}` }, [
        `Blocked by ${count(open.length, "task")}`,
      ]),
    );
  }
  if (subtasks.count > 0) {
    const all = subtasks.done === subtasks.count;
    parts.push(el("span", { class: `badge badge-subtasks${all ? " complete" : ""}` }, [`${subtasks.done}/${subtasks.count} subtasks`]));
  }
  return parts.length ? el("p", { class: "badges" }, parts) : null;
}

/**
 * `subtasks`: its subtasks done and in all, when the caller counted them for many cards at once.
 * @param {import("../lib/store.js").Record} task
 * @param {import("../lib/store.js").Store["state"]} state
 * @param {{ done: number, count: number }} [subtasks]
 */
export function taskCard(task, state, subtasks = subtaskCounts(task, state)) {
  const assignee = state.people.get(task.assigneeId)?.name ?? "unassigned";
  const moves = (TASK_TRANSITIONS[task.status] ?? []).map((to) =>
    el("button", { type: "button", "data-to": to, "aria-label": `Move “${task.title}” to ${labelOf(to)}` }, [`→ ${labelOf(to)}`]),
  );
  const parent = task.parentId ? state.tasks.get(task.parentId) : undefined;
  const chips = labelChips(task.labelIds, state.labels);
  const badgeRow = badges(task, state, subtasks);
  return el("li", { class: "card", "data-id": task.id, "data-status": task.status, draggable: "true", tabindex: "-1" }, [
    el("h4", {}, [el("button", { type: "button", class: "card-open", "aria-haspopup": "dialog" }, [task.title])]),
    ...(parent ? [el("p", { class: "parent" }, [`Subtask of “${parent.title}”`])] : []),
    el("p", { class: "meta" }, [
      el("span", { class: `priority-${task.priority}` }, [task.priority]),
      ` · due ${task.dueDate} · ${assignee}`,
    ]),
    ...(chips ? [chips] : []),
    ...(badgeRow ? [badgeRow] : []),
    el("div", { class: "moves", role: "group", "aria-label": "Move to" }, moves),
  ]);
}
