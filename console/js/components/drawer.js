// @ts-check
// The task drawer: a dialog beside the board, opened by clicking a card, with the task's details
// (status, priority, dates, people, milestone, labels, parent and subtasks, description), a Follow
// toggle (follow-toggle.js), its dependencies (task-dependencies.js) and its comment thread
// (task-comments.js). It follows the store while open, so others' changes show at once; Escape or
// Close returns to the card.

import { subtaskCounts, subtasksOf } from "../lib/derived.js";
import { byId, el } from "../lib/dom.js";
import { labelOf } from "../lib/workflow.js";
import { createFilesPanel } from "./files-panel.js";
import { createFollowToggle } from "./follow-toggle.js";
import { labelChips } from "./labels.js";
import { createComments } from "./task-comments.js";
import { createDependencies } from "./task-dependencies.js";

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   store: import("../lib/store.js").Store,
 *   me: { id: string },
 *   ensureTasks: (ids: string[]) => void,
 *   checklist: { show: (taskId: string) => Promise<void>, render: () => void },
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (the open task, its fields, comments and dependencies)
export function createDrawer({ api, store, me, ensureTasks, checklist }) {
  const dialog = /** @type {HTMLDialogElement} */ (byId("drawer"));
  const title = byId("drawer-title");
  const details = byId("drawer-details");
  const alert = byId("drawer-alert");
  const dependencies = createDependencies({
    api,
    store,
    root: byId("drawer-dependencies"),
    form: /** @type {HTMLFormElement} */ (byId("blocker-form")),
    alert,
    ensureTasks,
  });
  const comments = createComments({
    api,
    store,
    me,
    list: byId("comment-list"),
    form: /** @type {HTMLFormElement} */ (byId("comment-form")),
    alert,
  });
  const files = createFilesPanel({ root: byId("drawer-files"), label: "Files of this task", store });
  const follow = createFollowToggle({ button: /** @type {HTMLButtonElement} */ (byId("drawer-follow")), alert });
  /** @type {string | null} */ let taskId = null;
  /** The card the drawer was opened from, by task id: cards are drawn anew as the board changes. */
  /** @type {string | null} */ let openedFrom = null;
  /** The task whose files the panel shows while open: a link to it within the drawer keeps an upload under way. */
  /** @type {string | null} */ let shownFiles = null;

  /** @param {string} term @param {(Node | string)[]} description */
  const row = (term, description) => [el("dt", {}, [term]), el("dd", {}, description)];

  /** @param {any} task */
  function renderDetails(task) {
    const { state } = store;
    const parent = task.parentId ? state.tasks.get(task.parentId) : undefined;
    const subtasks = subtasksOf(task, state);
    const counts = subtaskCounts(task, state);
    const chips = labelChips(task.labelIds, state.labels);
    details.replaceChildren(
      el("dl", { class: "facts" }, [
        ...row("Status", [el("span", { class: `status-chip status-${task.status}` }, [labelOf(task.status)])]),
        ...row("Priority", [el("span", { class: `priority-${task.priority}` }, [task.priority])]),
        ...row("Due", [task.dueDate]),
        ...row("Assignee", [state.people.get(task.assigneeId)?.name ?? "unassigned"]),
        ...row("Project", [state.projects.get(task.projectId)?.name ?? "another project"]),
        ...(task.milestoneId ? row("Milestone", [state.milestones.get(task.milestoneId)?.name ?? "a milestone"]) : []),
        ...row("Labels", [chips ?? el("span", { class: "muted" }, ["none"])]),
        ...(parent
          ? row("Subtask of", [el("button", { type: "button", class: "link", "data-open-task": parent.id }, [parent.title])])
          : []),
        ...(counts.count ? row("Subtasks", [`${counts.done}/${counts.count} done`]) : []),
      ]),
      ...(subtasks.length
        ? [
            el(
              "ul",
              { class: "task-lines", "aria-label": "Subtasks" },
              subtasks.map((subtask) =>
                el("li", {}, [
                  el("button", { type: "button", class: "link", "data-open-task": subtask.id }, [subtask.title]),
                  el("span", { class: `status-chip status-${subtask.status}` }, [labelOf(subtask.status)]),
                ]),
              ),
            ),
          ]
        : []),
      task.description ? el("p", { class: "description" }, [task.description]) : el("p", { class: "muted" }, ["No description."]),
    );
  }

  function render() {
    if (!taskId || !dialog.open) return;
    const task = store.state.tasks.get(taskId);
    dialog.classList.toggle("gone", !task);
    if (!task) {
      title.textContent = "This task was deleted";
      details.replaceChildren();
      return;
    }
    title.textContent = task.title;
    renderDetails(task);
    dependencies.render();
    comments.render();
    checklist.render();
  }

  /** @param {string} id */
  function open(id) {
    if (!dialog.open) {
      openedFrom = id;
      dialog.showModal();
    }
    if (id !== taskId) alert.textContent = "";
    taskId = id;
    render();
    dependencies.show(id);
    void comments.show(id);
    if (id !== shownFiles) {
      void files.show(`/v1/tasks/${encodeURIComponent(id)}`);
      void follow.show(`/v1/tasks/${encodeURIComponent(id)}`);
    }
    shownFiles = id;
    void checklist.show(id);
    title.focus();
  }

  byId("drawer-close").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    taskId = null;
    shownFiles = null;
    const card = openedFrom ? document.querySelector(`.card[data-id="${CSS.escape(openedFrom)}"] .card-open`) : null;
    /** @type {HTMLElement | null} */ (card)?.focus();
  });
  // Clicking the backdrop (outside the drawer's box) closes it.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) {
      const box = dialog.getBoundingClientRect();
      const inside = event.clientX >= box.left && event.clientX <= box.right && event.clientY >= box.top && event.clientY <= box.bottom;
      if (!inside) dialog.close();
    }
    const opener = /** @type {HTMLElement} */ (event.target).closest("[data-open-task]");
    const id = opener?.getAttribute("data-open-task");
    if (id) open(id);
  });
  store.subscribe(render);

  return {
    /** @param {any} task */
    open: (task) => open(task.id),
    /** The id of the task shown, while the drawer is open. */
    openTask: () => (dialog.open ? taskId : null),
  };
}
