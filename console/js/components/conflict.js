// @ts-check
// A stale edit (412 precondition_failed): the fields the person changed, their value beside the
// value someone else saved meanwhile, and the choice: save theirs over it (with the record's new
// version as If-Match) or take the record as it is now. Nothing is overwritten without the choice.

import { el } from "../lib/dom.js";
import { labelOfField } from "../lib/schema.js";

/**
 * A value as a person reads it: names for references, "none" for nothing.
 * @param {string} field @param {unknown} value @param {import("../lib/store.js").Store} store
 */
export function shownValue(field, value, store) {
  const { state } = store;
  if (value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) return "none";
  /** @type {Record<string, Map<string, any>>} */
  const maps = {
    assigneeId: state.people,
    ownerId: state.people,
    reporterId: state.people,
    projectId: state.projects,
    milestoneId: state.milestones,
    parentId: state.tasks,
    labelIds: state.labels,
  };
  const map = maps[field];
  const name = (/** @type {string} */ id) => {
    const record = map?.get(id);
    return record ? (record.name ?? record.title) : id;
  };
  if (Array.isArray(value)) return value.map((v) => (map ? name(v) : String(v))).join(", ");
  return map ? name(String(value)) : String(value).replace(/^(todo|in_progress|on_hold)$/, (s) => s.replace("_", " "));
}

/**
 * @param {{
 *   slot: HTMLElement, kind: import("../lib/schema.js").Kind, mine: Record<string, unknown>, theirs: any,
 *   store: import("../lib/store.js").Store, keepMine: () => Promise<void>, takeTheirs: () => void,
 * }} options
 */
export function showConflict({ slot, kind, mine, theirs, store, keepMine, takeTheirs }) {
  const fields = Object.keys(mine);
  const who = theirs.updatedBy?.name ?? "someone else";
  const rows = fields.map((field) =>
    el("tr", {}, [
      el("th", { scope: "row" }, [labelOfField(field)]),
      el("td", {}, [shownValue(field, mine[field], store)]),
      el("td", {}, [shownValue(field, theirs[field], store)]),
    ]),
  );
  slot.replaceChildren(
    el("section", { class: "conflict", "aria-labelledby": "conflict-heading" }, [
      el("h3", { id: "conflict-heading" }, [`Changed by ${who} since you opened it (now version ${theirs.version})`]),
      fields.length
        ? el("table", {}, [
            el("caption", {}, [`Your change beside the ${kind.noun} as it is now`]),
            el("thead", {}, [
              el("tr", {}, [
                el("th", { scope: "col" }, ["Field"]),
                el("th", { scope: "col" }, ["Yours"]),
                el("th", { scope: "col" }, ["Theirs, now"]),
              ]),
            ]),
            el("tbody", {}, rows),
          ])
        : el("p", {}, [`The ${kind.noun} was changed before your delete.`]),
      el("div", { class: "form-actions" }, [
        el("button", { type: "button", class: "primary", "data-choice": "mine" }, [
          fields.length ? "Save mine over theirs" : "Delete anyway",
        ]),
        el("button", { type: "button", "data-choice": "theirs" }, ["Take theirs"]),
      ]),
    ]),
  );
  slot.querySelector("[data-choice=mine]")?.addEventListener("click", () => void keepMine());
  slot.querySelector("[data-choice=theirs]")?.addEventListener("click", takeTheirs);
  /** @type {HTMLElement} */ (slot.querySelector("[data-choice=mine]")).focus();
}
