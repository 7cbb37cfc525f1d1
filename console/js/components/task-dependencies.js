// @ts-check
// The drawer's dependencies: the tasks this one waits for (blockedBy), each with its status and
// Remove; Add a blocker, chosen from the tasks the console holds (any project); and the tasks that
// wait for this one. Every change is the API's answer put in the store, and others' changes
// arrive as task.updated events, so the lists stay live.

import { blockingOf } from "../lib/derived.js";
import { el } from "../lib/dom.js";
import { describeDependencyRefusal, describeRefusal } from "../lib/refusals.js";
import { labelOf } from "../lib/workflow.js";

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   store: import("../lib/store.js").Store,
 *   root: HTMLElement,
 *   form: HTMLFormElement,
 *   alert: HTMLElement,
 *   ensureTasks: (ids: string[]) => void,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (the blockers, the add form and its refusals)
export function createDependencies({ api, store, root, form, alert, ensureTasks }) {
  const select = /** @type {HTMLSelectElement} */ (form.querySelector("select"));
  /** @type {string | null} */ let taskId = null;

  /** A task as a line: its title (opens it in the drawer) and status. @param {string} id @param {HTMLElement[]} [extra] */
  function line(id, extra = []) {
    const task = store.state.tasks.get(id);
    if (!task) return el("li", { class: "muted" }, ["Loading…"]);
    return el("li", { "data-status": task.status }, [
      el("button", { type: "button", class: "link", "data-open-task": task.id }, [task.title]),
      el("span", { class: `status-chip status-${task.status}` }, [labelOf(task.status)]),
      ...extra,
    ]);
  }

  /** @param {string} blockerId */
  function removeButton(blockerId) {
    const title = store.state.tasks.get(blockerId)?.title ?? "this task";
    const button = /** @type {HTMLButtonElement} */ (
      el("button", { type: "button", "aria-label": `Remove blocker “${title}”` }, ["Remove"])
    );
    button.addEventListener("click", async () => {
      if (!taskId) return;
      button.disabled = true;
      alert.textContent = "";
      try {
        store.load("tasks", [await api.removeBlocker(taskId, blockerId)]);
      } catch (error) {
        button.disabled = false;
        alert.textContent = `The blocker was not removed: ${describeRefusal(error)}`;
      }
    });
    return button;
  }

  /** The tasks that may be chosen: every task held but this one and its blockers, by project then title. @param {any} task */
  function choices(task) {
    const groups = new Map();
    const candidates = [...store.state.tasks.values()]
      .filter((other) => other.id !== task.id && !(task.blockedBy ?? []).includes(other.id))
      .sort((a, b) => a.title.localeCompare(b.title));
    for (const other of candidates) {
      const project = store.state.projects.get(other.projectId)?.name ?? "Another project";
      if (!groups.has(project)) groups.set(project, []);
      groups.get(project).push(el("option", { value: other.id }, [`${other.title} (${labelOf(other.status)})`]));
    }
    const own = store.state.projects.get(task.projectId)?.name;
    const ordered = [...groups.entries()].sort(([a], [b]) => (a === own ? -1 : b === own ? 1 : a.localeCompare(b)));
    return [
      el("option", { value: "" }, ["Choose a task…"]),
      ...ordered.map(([project, options]) => el("optgroup", { label: project }, options)),
    ];
  }

  function render() {
    const task = taskId ? store.state.tasks.get(taskId) : undefined;
    if (!task) return;
    /** @type {string[]} */
    const blockedBy = task.blockedBy ?? [];
    const blocking = blockingOf(task, store.state);
    ensureTasks([...blockedBy, ...blocking]);
    root.replaceChildren(
      el("h4", {}, ["Waiting for"]),
      blockedBy.length
        ? el(
            "ul",
            { class: "task-lines", "aria-label": "Blocked by" },
            blockedBy.map((id) => line(id, [removeButton(id)])),
          )
        : el("p", { class: "muted" }, ["Not waiting for any task."]),
      el("h4", {}, ["Holding up"]),
      blocking.length
        ? el(
            "ul",
            { class: "task-lines", "aria-label": "Blocking" },
            blocking.map((id) => line(id)),
          )
        : el("p", { class: "muted" }, ["No task waits for this one."]),
    );
    const chosen = select.value;
    const hadFocus = document.activeElement === select;
    select.replaceChildren(...choices(task));
    select.value = chosen;
    if (select.value !== chosen) select.value = "";
    if (hadFocus) select.focus();
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const task = taskId ? store.state.tasks.get(taskId) : undefined;
    const blockerId = select.value;
    if (!task || !blockerId) return;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button"));
    button.disabled = true;
    alert.textContent = "";
    try {
      store.load("tasks", [await api.addBlocker(task.id, blockerId)]);
      select.value = "";
    } catch (error) {
      alert.textContent = describeDependencyRefusal(error, task, blockerId, store.state);
    } finally {
      button.disabled = false;
    }
  });

  return {
    render,
    /** @param {string} id */
    show(id) {
      if (id !== taskId) select.value = "";
      taskId = id;
      render();
    },
  };
}
