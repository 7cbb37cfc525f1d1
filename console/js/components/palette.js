// @ts-check
// The command palette (Ctrl-K or Cmd-K, or the header's "Go to…" button): a search box over the
// projects, the tasks the console holds and the people, and the creates the person may make. The
// arrow keys move through the matches (a combobox with a listbox, aria-activedescendant), Enter
// goes there or opens the new record's form, Escape closes it.

import { el } from "../lib/dom.js";
import { KINDS } from "../lib/schema.js";

/** @typedef {{ id: string, text: string, detail: string, run: () => void }} Entry */

/**
 * @param {{
 *   store: import("../lib/store.js").Store,
 *   may: (kind: string) => boolean,
 *   create: (kind: string) => void,
 *   openProject: (id: string) => void,
 *   openTask: (task: any) => void,
 *   openPerson: (person: any) => void,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the entries, the active one and the DOM handlers share one closure
export function createPalette({ store, may, create, openProject, openTask, openPerson }) {
  const input = /** @type {HTMLInputElement} */ (
    el("input", {
      id: "palette-input",
      type: "text",
      role: "combobox",
      "aria-expanded": "true",
      "aria-controls": "palette-list",
      "aria-autocomplete": "list",
      autocomplete: "off",
    })
  );
  const list = el("ul", { id: "palette-list", role: "listbox", "aria-label": "Matches" });
  const dialog = /** @type {HTMLDialogElement} */ (
    el("dialog", { class: "palette", "aria-labelledby": "palette-title" }, [
      el("h2", { id: "palette-title" }, ["Go to or create"]),
      el("label", { for: "palette-input" }, ["Project, task or person"]),
      input,
      list,
    ])
  );
  document.body.append(dialog);
  /** @type {Entry[]} */ let shown = [];
  let active = 0;

  /** @returns {Entry[]} */
  function entries() {
    const { state } = store;
    const creates = ["project", "task", "milestone", "person", "risk", "issue", "financialEntry", "label"]
      .filter(may)
      .map((kind) => ({ id: `create-${kind}`, text: `New ${KINDS[kind]?.noun}`, detail: "create", run: () => create(kind) }));
    return [
      ...creates,
      ...[...state.projects.values()].map((p) => ({ id: `p-${p.id}`, text: p.name, detail: "project", run: () => openProject(p.id) })),
      ...[...state.tasks.values()].map((t) => ({
        id: `t-${t.id}`,
        text: t.title,
        detail: `task · ${state.projects.get(t.projectId)?.name ?? ""}`,
        run: () => openTask(t),
      })),
      ...[...state.people.values()].map((p) => ({ id: `u-${p.id}`, text: p.name, detail: "person", run: () => openPerson(p) })),
    ];
  }

  function render() {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    const all = entries();
    shown = all.filter((entry) => words.every((word) => `${entry.text} ${entry.detail}`.toLowerCase().includes(word))).slice(0, 50);
    active = Math.min(active, Math.max(shown.length - 1, 0));
    list.replaceChildren(
      ...shown.map((entry, index) =>
        el("li", { id: `palette-${entry.id}`, role: "option", "aria-selected": String(index === active), "data-index": String(index) }, [
          entry.text,
          el("span", { class: "muted" }, [` ${entry.detail}`]),
        ]),
      ),
    );
    if (shown.length === 0)
      list.replaceChildren(
        el("li", { class: "muted", role: "option", "aria-disabled": "true", "aria-selected": "false" }, ["Nothing matches"]),
      );
    const current = shown[active];
    if (current) input.setAttribute("aria-activedescendant", `palette-${current.id}`);
    else input.removeAttribute("aria-activedescendant");
    list.querySelector("[aria-selected=true]")?.scrollIntoView({ block: "nearest" });
  }

  function open() {
    input.value = "";
    active = 0;
    render();
    if (!dialog.open) dialog.showModal();
    input.focus();
  }

  /** @param {number} index */
  function run(index) {
    const entry = shown[index];
    if (!entry) return;
    dialog.close();
    entry.run();
  }

  input.addEventListener("input", () => {
    active = 0;
    render();
  });
  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      active = (active + step + shown.length) % Math.max(shown.length, 1);
      render();
    } else if (event.key === "Enter") {
      event.preventDefault();
      run(active);
    }
  });
  list.addEventListener("click", (event) => {
    const index = /** @type {HTMLElement} */ (event.target).closest("[data-index]")?.getAttribute("data-index");
    if (index !== null && index !== undefined) run(Number(index));
  });
  // Records that arrive while it is open (a project's tasks being listed, others' creates) are offered at once.
  store.subscribe(() => {
    if (dialog.open) render();
  });
  addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
      event.preventDefault();
      open();
    }
  });

  return { open };
}
