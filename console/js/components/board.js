// @ts-check
// The task board of one project: a column per status, a card per task (card.js). Each card offers
// buttons for exactly the workflow moves allowed from its status (keyboard and screen readers),
// can be dragged onto a column that is an allowed move (mouse), and opens the task's drawer when
// clicked (or its title pressed). `shows(task)` narrows the cards (the search and label filter).
// Rendering is from the store only, keyed by task: a change rebuilds only the cards it changed.

import { MAX_LISTED } from "../lib/api.js";
import { blockersOf } from "../lib/derived.js";
import { el, placeInOrder } from "../lib/dom.js";
import { canMove, labelOf, TASK_STATUSES } from "../lib/workflow.js";
import { taskCard } from "./card.js";

/**
 * `counts()`: how many tasks of the project each status holds in the API (GET /v1/tasks/counts),
 * when the board holds fewer than all of them (null: it holds them all); a column then says how many
 * of them it shows and offers `onMore(status)` to load the next page of that column. While the
 * project's tasks are still arriving (`arriving()`), a column says how many of them it holds so far.
 * @param {{
 *   root: HTMLElement,
 *   store: import("../lib/store.js").Store,
 *   onMove: (task: any, to: string) => void,
 *   onOpen: (task: any) => void,
 *   shows?: (task: any) => boolean,
 *   filtered?: () => boolean,
 *   counts?: () => Record<string, number> | null,
 *   onMore?: (status: string) => void,
 *   arriving?: () => boolean,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (columns, cards and drag and drop)
export function createBoard({
  root,
  store,
  onMove,
  onOpen,
  shows = () => true,
  filtered = () => false,
  counts = () => null,
  onMore,
  arriving = () => false,
}) {
  /** @type {string | null} */ let projectId = null;
  /** @type {Set<string>} */ const busy = new Set();
  /** @type {Set<string>} */ const refused = new Set();
  /** @type {Set<string>} */ const arrived = new Set();
  /** @type {any} */ let dragged = null;

  /**
   * The cards built, by task id, each with the key of what it shows: a render builds a card only
   * when its key changed (the task's version, its assignee's, parent's and labels' names, its open
   * blockers, its subtasks), so a live change replaces the one card it changed.
   * @type {Map<string, { node: HTMLElement, key: string }>}
   */
  const cards = new Map();
  /** The columns, built once: each one's heading count, list and "Show more". @type {Map<string, { section: HTMLElement, count: HTMLElement, list: HTMLElement, more: HTMLElement }>} */
  const columns = new Map();
  /** Whether a render was skipped while the board was hidden (another view shown): done when it is shown. */
  let stale = true;

  /** @param {any} task @param {{ done: number, count: number } | undefined} subtasks */
  function cardOf(task, subtasks) {
    const { state } = store;
    const labels = (task.labelIds ?? []).map((/** @type {string} */ id) => `${id}@${state.labels.get(id)?.version ?? "?"}`).join(",");
    const open = blockersOf(task, state)
      .open.map((blocker) => `${blocker.id}@${blocker.version}`)
      .join(",");
    const parent = task.parentId ? state.tasks.get(task.parentId) : undefined;
    const assignee = state.people.get(task.assigneeId);
    const key = [task.version, assignee?.version, parent?.version, labels, open, subtasks ? `${subtasks.done}/${subtasks.count}` : ""].join(
      "|",
    );
    const built = cards.get(task.id);
    if (built && built.key === key) return built.node;
    const node = taskCard(task, state, subtasks);
    if (arrived.has(task.id)) node.classList.add("arrived");
    cards.set(task.id, { node, key });
    return node;
  }

  /** @param {string} status */
  function columnOf(status) {
    const known = columns.get(status);
    if (known) return known;
    const headingId = `column-${status}`;
    const count = el("span", { class: "muted" });
    const list = el("ul");
    const more = el("button", { type: "button", class: "column-more", "data-more": status, hidden: true });
    const section = el("section", { class: "column", "data-status": status, "aria-labelledby": headingId }, [
      el("h3", { id: headingId }, [labelOf(status), count]),
      list,
      more,
    ]);
    const column = { section, count, list, more };
    columns.set(status, column);
    return column;
  }

  /** @param {string} text @param {HTMLElement} node @param {string} [label] */
  function setText(node, text, label) {
    if (node.textContent !== text) node.textContent = text;
    if (label !== undefined && node.getAttribute("aria-label") !== label) node.setAttribute("aria-label", label);
  }

  function render() {
    // A hidden board (another view shown) does no work: it renders when shown again.
    if (root.closest("[hidden]")) return void (stale = true);
    stale = false;
    const focused = /** @type {HTMLElement | null} */ (document.activeElement?.closest?.(".card") ?? null);
    const focusedId = root.contains(focused) ? focused?.dataset.id : undefined;
    const onTitle = document.activeElement?.classList.contains("card-open") ?? false;
    const inProject = [...store.state.tasks.values()].filter((task) => task.projectId === projectId);
    const tasks = inProject.filter((task) => shows(task)).sort((a, b) => a.dueDate.localeCompare(b.dueDate) || a.id.localeCompare(b.id));
    // Each task's subtasks counted in one pass (not a pass over every task for each card).
    const loaded = projectId !== null && store.state.loadedProjects.has(projectId);
    /** @type {Map<string, { done: number, count: number }>} */
    const subtasks = new Map();
    if (loaded)
      for (const task of inProject) {
        if (!task.parentId) continue;
        const counted = subtasks.get(task.parentId) ?? { done: 0, count: 0 };
        counted.count += 1;
        if (task.status === "done") counted.done += 1;
        subtasks.set(task.parentId, counted);
      }
    const subtasksOf = (/** @type {any} */ task) =>
      loaded ? (subtasks.get(task.id) ?? { done: 0, count: 0 }) : { done: task.subtasksDone ?? 0, count: task.subtaskCount ?? 0 };
    const inApi = counts();
    const loading = arriving();
    /** @type {Map<string, HTMLElement[]>} */
    const byStatus = new Map(TASK_STATUSES.map((status) => [status, []]));
    for (const task of tasks) byStatus.get(task.status)?.push(cardOf(task, subtasksOf(task)));
    const sections = TASK_STATUSES.map((status) => {
      const column = columnOf(status);
      const inColumn = /** @type {HTMLElement[]} */ (byStatus.get(status));
      // With a filter the API's counts are of other tasks: the column counts what it shows.
      const total = inApi && !filtered() ? (inApi[status] ?? 0) : inColumn.length;
      const left = Math.max(0, total - inColumn.length);
      const count = left > 0 ? `${inColumn.length} of ${total}` : String(inColumn.length);
      setText(
        column.count,
        count,
        left > 0 ? `${inColumn.length} of ${total} tasks ${loading ? "loaded so far" : "shown"}` : `${total} tasks`,
      );
      // The rest of a column still arriving is not offered: it comes by itself.
      const offered = left > 0 && onMore && !loading;
      column.more.hidden = !offered;
      setText(column.more, offered ? `Show more (${left} not shown)` : "");
      for (const node of inColumn) {
        const id = node.dataset.id ?? "";
        if (busy.has(id)) node.setAttribute("aria-busy", "true");
        else node.removeAttribute("aria-busy");
        node.classList.toggle("refused", refused.has(id));
      }
      placeInOrder(column.list, inColumn);
      return column.section;
    });
    if (root.childElementCount !== sections.length) root.replaceChildren(...sections);
    // Cards of tasks gone from the project (deleted, moved away) are let go.
    const held = new Set(inProject.map((task) => task.id));
    for (const id of cards.keys()) if (!held.has(id)) cards.delete(id);
    arrived.clear();
    // A card that moved (here or in another console) keeps the keyboard focus it had.
    if (focusedId && !root.contains(document.activeElement))
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
      if (id !== projectId) cards.clear();
      projectId = id;
      render();
    },
    /** Renders when a change came while the board was hidden. */
    shown() {
      if (stale) render();
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

/**
 * What the board's notice says of the tasks it holds (empty when it holds them all): still
 * arriving, or cut at the lists' cap (`total`: the API's count, once it answered).
 * @param {{ cut: boolean, loading: boolean, total: number | undefined, held: number }} state
 */
export function describeHeld({ cut, loading, total, held }) {
  const n = (/** @type {number} */ count) => count.toLocaleString("en");
  if (loading) return `Loading this project's ${total === undefined ? "" : `${n(total)} `}tasks: ${n(held)} so far…`;
  if (!cut) return "";
  if (total === undefined) return `This project has more than ${n(MAX_LISTED)} tasks: counting them…`;
  return `This project has ${n(total)} tasks and the board holds ${n(held)} of them: each column says how many it shows of how many it has, and “Show more” loads the next ones.`;
}
