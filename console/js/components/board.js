// @ts-check
// The task board of one project: a column per status, a card per task (card.js). Each card offers
// buttons for exactly the workflow moves allowed from its status (keyboard and screen readers),
// can be dragged onto a column that is an allowed move (mouse), and opens the task's drawer when
// clicked (or its title pressed). `shows(task)` narrows the cards (the search and label filter).
// Rendering is from the store only.

import { el } from "../lib/dom.js";
import { canMove, labelOf, TASK_STATUSES } from "../lib/workflow.js";
import { taskCard } from "./card.js";

/**
 * `counts()`: how many tasks of the project each status holds in the API (GET /v1/tasks/counts),
 * when the board holds fewer than all of them (null: it holds them all); a column then says how many
 * of them it shows and offers `onMore(status)` to load the next page of that column.
 * @param {{
 *   root: HTMLElement,
 *   store: import("../lib/store.js").Store,
 *   onMove: (task: any, to: string) => void,
 *   onOpen: (task: any) => void,
 *   shows?: (task: any) => boolean,
 *   filtered?: () => boolean,
 *   counts?: () => Record<string, number> | null,
 *   onMore?: (status: string) => void,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (columns, cards and drag and drop)
export function createBoard({ root, store, onMove, onOpen, shows = () => true, filtered = () => false, counts = () => null, onMore }) {
  /** @type {string | null} */ let projectId = null;
  /** @type {Set<string>} */ const busy = new Set();
  /** @type {Set<string>} */ const refused = new Set();
  /** @type {Set<string>} */ const arrived = new Set();
  /** @type {any} */ let dragged = null;

  /** @param {any} task */
  function card(task) {
    const node = taskCard(task, store.state);
    if (busy.has(task.id)) node.setAttribute("aria-busy", "true");
    if (refused.has(task.id)) node.classList.add("refused");
    if (arrived.has(task.id)) node.classList.add("arrived");
    return node;
  }

  function render() {
    const focused = /** @type {HTMLElement | null} */ (document.activeElement?.closest?.(".card") ?? null);
    const focusedId = root.contains(focused) ? focused?.dataset.id : undefined;
    const onTitle = document.activeElement?.classList.contains("card-open") ?? false;
    const tasks = [...store.state.tasks.values()]
      .filter((task) => task.projectId === projectId && shows(task))
      .sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id));
    const inApi = counts();
    root.replaceChildren(
      ...TASK_STATUSES.map((status) => {
        const inColumn = tasks.filter((task) => task.status === status);
        const headingId = `column-${status}`;
        // With a filter the API's counts are of other tasks: the column counts what it shows.
        const total = inApi && !filtered() ? (inApi[status] ?? 0) : inColumn.length;
        const left = Math.max(0, total - inColumn.length);
        const count = left > 0 ? `${inColumn.length} of ${total}` : String(inColumn.length);
        return el("section", { class: "column", "data-status": status, "aria-labelledby": headingId }, [
          el("h3", { id: headingId }, [
            labelOf(status),
            el("span", { class: "muted", "aria-label": left > 0 ? `${inColumn.length} of ${total} tasks shown` : `${total} tasks` }, [
              count,
            ]),
          ]),
          el("ul", {}, inColumn.map(card)),
          ...(left > 0 && onMore
            ? [el("button", { type: "button", class: "column-more", "data-more": status }, [`Show more (${left} not shown)`])]
            : []),
        ]);
      }),
    );
    arrived.clear();
    // A card that moved (here or in another console) keeps the keyboard focus it had.
    if (focusedId)
      /** @type {HTMLElement | null} */ (
        root.querySelector(`.card[data-id="${CSS.escape(focusedId)}"]${onTitle ? " .card-open" : ""}`)
      )?.focus();
  }

  root.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const more = target.closest("[data-more]")?.getAttribute("data-more");
    if (more) return onMore?.(more);
    const id = target.closest(".card")?.getAttribute("data-id");
    const task = id && store.state.tasks.get(id);
    if (!task) return;
    const move = target.closest("button[data-to]");
    if (move) onMove(task, /** @type {string} */ (move.getAttribute("data-to")));
    else if (!target.closest(".moves")) onOpen(task);
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
