// @ts-check
// The task board of one project: a column per status, a card per task. Each card offers buttons
// for exactly the workflow moves allowed from its status (keyboard and screen readers), and can be
// dragged onto a column that is an allowed move (mouse). Rendering is from the store only.

import { canMove, labelOf, TASK_STATUSES, TASK_TRANSITIONS } from "./workflow.js";

/** @param {string} tag @param {Record<string, string>} [attributes] @param {(Node | string)[]} [children] */
function el(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

/**
 * @param {{ root: HTMLElement, store: import("./store.js").Store, onMove: (task: any, to: string) => void }} options
 */
export function createBoard({ root, store, onMove }) {
  /** @type {string | null} */ let projectId = null;
  /** @type {Set<string>} */ const busy = new Set();
  /** @type {Set<string>} */ const refused = new Set();
  /** @type {Set<string>} */ const arrived = new Set();
  /** @type {any} */ let dragged = null;

  function card(task) {
    const assignee = store.state.people.get(task.assigneeId)?.name ?? "unassigned";
    const moves = (TASK_TRANSITIONS[task.status] ?? []).map((to) =>
      el("button", { type: "button", "data-to": to, "aria-label": `Move “${task.title}” to ${labelOf(to)}` }, [`→ ${labelOf(to)}`]),
    );
    const node = el("li", { class: "card", "data-id": task.id, "data-status": task.status, draggable: "true", tabindex: "-1" }, [
      el("h4", {}, [task.title]),
      el("p", { class: "meta" }, [
        el("span", { class: `priority-${task.priority}` }, [task.priority]),
        ` · due ${task.dueDate} · ${assignee}`,
      ]),
      el("div", { class: "moves", role: "group", "aria-label": "Move to" }, moves),
    ]);
    if (busy.has(task.id)) node.setAttribute("aria-busy", "true");
    if (refused.has(task.id)) node.classList.add("refused");
    if (arrived.has(task.id)) node.classList.add("arrived");
    return node;
  }

  function render() {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement?.closest?.(".card") ?? null);
    const focusedId = root.contains(focused) ? focused?.dataset.id : undefined;
    const tasks = [...store.state.tasks.values()]
      .filter((task) => task.projectId === projectId)
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id));
    root.replaceChildren(
      ...TASK_STATUSES.map((status) => {
        const inColumn = tasks.filter((task) => task.status === status);
        const headingId = `column-${status}`;
        return el("section", { class: "column", "data-status": status, "aria-labelledby": headingId }, [
          el("h3", { id: headingId }, [labelOf(status), el("span", { class: "muted", "aria-label": `${inColumn.length} tasks` }, [String(inColumn.length)])]),
          el("ul", {}, inColumn.map(card)),
        ]);
      }),
    );
    arrived.clear();
    // A card that moved (here or in another console) keeps the keyboard focus it had.
    if (focusedId) /** @type {HTMLElement | null} */ (root.querySelector(`.card[data-id="${CSS.escape(focusedId)}"]`))?.focus();
  }

  root.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("button[data-to]");
    const id = button?.closest(".card")?.getAttribute("data-id");
    const task = id && store.state.tasks.get(id);
    if (button && task) onMove(task, /** @type {string} */ (button.getAttribute("data-to")));
  });

  root.addEventListener("dragstart", (event) => {
    const id = /** @type {HTMLElement} */ (event.target).closest?.(".card")?.getAttribute("data-id");
    dragged = id ? store.state.tasks.get(id) : null;
    if (!dragged) return;
    event.dataTransfer?.setData("text/plain", dragged.id);
    for (const column of root.querySelectorAll(".column")) {
      const status = /** @type {HTMLElement} */ (column).dataset.status ?? "";
      if (status !== dragged.status) column.classList.add(canMove(dragged.status, status) ? "drop-allowed" : "drop-refused");
    }
  });
  root.addEventListener("dragend", () => {
    dragged = null;
    root.querySelectorAll(".column").forEach((column) => column.classList.remove("drop-allowed", "drop-refused"));
  });
  root.addEventListener("dragover", (event) => {
    const column = /** @type {HTMLElement} */ (event.target).closest?.(".column");
    // Only an allowed move accepts the drop: the browser shows "not allowed" everywhere else.
    if (dragged && column && canMove(dragged.status, /** @type {HTMLElement} */ (column).dataset.status ?? "")) event.preventDefault();
  });
  root.addEventListener("drop", (event) => {
    event.preventDefault();
    const column = /** @type {HTMLElement} */ (event.target).closest?.(".column");
    if (dragged && column) onMove(dragged, /** @type {HTMLElement} */ (column).dataset.status ?? "");
  });

  return {
    render,
    /** @param {string | null} id */
    show(id) {
      projectId = id;
      render();
    },
    /** @param {string} id @param {boolean} on */
    setBusy(id, on) {
      if (on) busy.add(id);
      else busy.delete(id);
      refused.delete(id);
      render();
    },
    /** @param {string} id */
    markRefused(id) {
      busy.delete(id);
      refused.add(id);
      render();
    },
    /** A task that moved because of an event from elsewhere: highlighted once. @param {string} id */
    markArrived(id) {
      arrived.add(id);
    },
  };
}
