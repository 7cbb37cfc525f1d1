// @ts-check
// The board's search box (GET /v1/tasks?q=, the API's full-text search) and label filter
// (?labelId=). The API says which of the project's tasks match, as ids (?fields=id); the cards
// themselves come from the store as always. A live change that may change the answer (a task
// created, retitled, relabelled; a label deleted) asks again, so the board stays filtered as
// others work. Each answer is applied only if no newer question was asked meanwhile.

import { byId, el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";

const TYPING_PAUSE_MS = 250;
/** Task fields whose change can change whether the task matches. */
const MATCHED_FIELDS = ["title", "description", "labelIds", "projectId"];

/**
 * @param {{ api: import("../lib/api.js").Api, store: import("../lib/store.js").Store, onChange: () => void }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (search, label and the matching ids)
export function createFilters({ api, store, onChange }) {
  const form = /** @type {HTMLFormElement} */ (byId("filters"));
  const search = /** @type {HTMLInputElement} */ (byId("task-search"));
  const select = /** @type {HTMLSelectElement} */ (byId("label-filter"));
  const status = byId("filter-status");
  /** @type {string | null} */ let projectId = null;
  /** The ids the API answered for the current filter; null before its first answer. @type {Set<string> | null} */
  let matches = null;
  let asked = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */ let typing;

  const current = () => ({ q: search.value.trim(), labelId: select.value });
  const active = () => Boolean(current().q || current().labelId);

  async function ask() {
    clearTimeout(typing);
    const question = ++asked;
    const { q, labelId } = current();
    if (!projectId || (!q && !labelId)) {
      matches = null;
      return onChange();
    }
    try {
      const ids = await api.matchingTaskIds({ projectId, q, labelId });
      if (question !== asked) return;
      matches = ids;
      status.classList.remove("error");
    } catch (error) {
      if (question !== asked) return;
      matches = new Set();
      status.classList.add("error");
      status.textContent = `The search could not run: ${describeRefusal(error)}`;
    }
    onChange();
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void ask();
  });
  search.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => void ask(), TYPING_PAUSE_MS);
  });
  select.addEventListener("change", () => void ask());

  return {
    /** Whether a search or a label narrows the board. */
    active,
    /** Whether the board shows the task: every task without a filter, else the API's matches. @param {any} task */
    shows(task) {
      if (!active()) return true;
      // Until the first answer the board stays as it was; a label taken off since is seen at once.
      const { labelId } = current();
      if (labelId && !(task.labelIds ?? []).includes(labelId)) return false;
      return matches === null || matches.has(task.id);
    },
    /** @param {string} id */
    showProject(id) {
      projectId = id;
      matches = null;
      if (active()) void ask();
    },
    /** The label filter's choices: every label of the organisation, by name; a deleted choice falls back to all. */
    renderLabels() {
      const chosen = select.value;
      const labels = [...store.state.labels.values()].sort((a, b) => a.name.localeCompare(b.name));
      select.replaceChildren(
        el("option", { value: "" }, ["All labels"]),
        ...labels.map((label) => el("option", { value: label.id }, [label.name])),
      );
      select.value = labels.some((label) => label.id === chosen) ? chosen : "";
      if (chosen && !select.value) void ask();
    },
    /** A live event: ask again when it may change which tasks match. @param {import("../lib/store.js").OpsEvent | null} event */
    follow(event) {
      if (!active() || !event) return;
      if (event.type.startsWith("task.") && event.data.projectId !== projectId) return;
      const changed =
        event.type === "task.created" || (event.type === "task.updated" && MATCHED_FIELDS.some((field) => event.changes?.[field]));
      if (changed || event.type === "label.deleted") {
        clearTimeout(typing);
        typing = setTimeout(() => void ask(), TYPING_PAUSE_MS);
      }
    },
    /** "3 of 12 tasks match" under the filters (or nothing without one). @param {number} shown @param {number} total */
    summarise(shown, total) {
      if (status.classList.contains("error") && active()) return;
      status.classList.remove("error");
      status.textContent =
        active() && matches !== null ? `Showing ${shown} of ${total} ${total === 1 ? "task" : "tasks"}` : active() ? "Searching…" : "";
    },
  };
}
