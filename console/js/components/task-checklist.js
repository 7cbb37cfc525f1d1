// @ts-check
// The drawer's checklist: the task's items, each a checkbox that marks it done or not (a change
// with If-Match on the item's version), an Edit (its record form: title, done, delete) and an Add
// form for a new item (with an Idempotency-Key). Items are listed once when the task is opened and
// then follow the store (checklistItem.* events).

import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";
import { KINDS, canManage, operationOf } from "../lib/schema.js";

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   store: import("../lib/store.js").Store,
 *   root: HTMLElement,
 *   alert: HTMLElement,
 *   scopes: Set<string>,
 *   forms: ReturnType<typeof import("./record-form.js").createRecordForms>,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the open task and the DOM handlers share one closure
export function createChecklist({ api, store, root, alert, scopes, forms }) {
  const kind = KINDS.checklistItem;
  const manage = canManage(scopes, kind);
  /** @type {string | null} */ let taskId = null;
  const listed = new Set();

  function items() {
    return [...store.state.checklist.values()]
      .filter((item) => item.taskId === taskId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** @param {any} item */
  function line(item) {
    const box = el("input", { type: "checkbox", id: `check-${item.id}`, checked: item.done, disabled: !manage, "data-item": item.id });
    return el("li", {}, [
      box,
      el("label", { for: `check-${item.id}` }, [item.title]),
      ...(manage
        ? [
            el(
              "button",
              { type: "button", class: "link", "data-edit-item": item.id, "aria-label": `Edit checklist item “${item.title}”` },
              ["Edit"],
            ),
          ]
        : []),
    ]);
  }

  const summary = el("p", { class: "muted" });
  const list = el("ul", { class: "checklist", "aria-label": "Checklist" });
  root.replaceChildren(
    summary,
    list,
    ...(manage
      ? [
          el("form", { class: "inline-form", "data-add-item": "" }, [
            el("label", { for: "checklist-new" }, ["Add an item"]),
            el("input", { id: "checklist-new", name: "title", required: true, maxlength: "200", autocomplete: "off" }),
            el("button", { type: "submit" }, ["Add item"]),
          ]),
        ]
      : []),
  );

  /** The list and its count (the add form keeps what is being typed). */
  function render() {
    if (!taskId) return;
    const shown = items();
    const done = shown.filter((item) => item.done).length;
    summary.textContent = shown.length ? `${done} of ${shown.length} done` : "No checklist items.";
    list.replaceChildren(...shown.map(line));
  }

  /** @param {string} id */
  async function show(id) {
    taskId = id;
    render();
    if (listed.has(id)) return;
    listed.add(id);
    try {
      store.load("checklist", await api.list(`/v1/tasks/${encodeURIComponent(id)}/checklist-items`));
    } catch (error) {
      listed.delete(id);
      alert.textContent = `The checklist could not be loaded: ${describeRefusal(error)}`;
    }
  }

  root.addEventListener("change", async (event) => {
    const box = /** @type {HTMLInputElement} */ (event.target);
    const item = store.state.checklist.get(box.dataset.item ?? "");
    const operation = operationOf("update", kind);
    if (!item || !operation) return;
    box.disabled = true;
    try {
      const path = operation.path.replace("{id}", encodeURIComponent(item.id));
      store.load("checklist", [await api.write(operation.method, path, { done: box.checked }, { "if-match": `"${item.version}"` })]);
    } catch (error) {
      box.checked = item.done;
      alert.textContent = `“${item.title}” was not changed: ${describeRefusal(error)}`;
    } finally {
      box.disabled = false;
    }
  });
  root.addEventListener("click", (event) => {
    const id = /** @type {HTMLElement} */ (event.target).closest("[data-edit-item]")?.getAttribute("data-edit-item");
    const record = id ? store.state.checklist.get(id) : undefined;
    if (record) forms.open({ kind, record });
  });
  root.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = /** @type {HTMLFormElement} */ (event.target);
    const input = /** @type {HTMLInputElement} */ (form.elements.namedItem("title"));
    const operation = operationOf("create", kind);
    if (!taskId || !operation || !input.value.trim()) return;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button"));
    button.disabled = true;
    try {
      const path = operation.path.replace("{id}", encodeURIComponent(taskId));
      // The same item sent again (a double press, a retry) carries the same key and is made once.
      const title = input.value.trim();
      if (form.dataset.keyFor !== title) Object.assign(form.dataset, { key: crypto.randomUUID(), keyFor: title });
      store.load("checklist", [await api.write(operation.method, path, { title }, { "idempotency-key": form.dataset.key ?? "" })]);
      input.value = "";
      input.focus();
    } catch (error) {
      alert.textContent = `The item was not added: ${describeRefusal(error)}`;
    } finally {
      button.disabled = false;
    }
  });

  return { show, render };
}
