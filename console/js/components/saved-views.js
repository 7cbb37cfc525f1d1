// @ts-check
// A table's saved views (GET, POST, PATCH and DELETE /v1/settings/views): choose one (the person's
// own and those shared with the organisation), save the table as it is shown under a name, and, for
// a view of one's own, rename it (to the name typed), share it with the organisation or stop, or
// delete it. Only a view's owner changes it; the API refuses anyone else anyway.

import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";

/**
 * @typedef {{
 *   list: () => Promise<any[]>,
 *   save: (name: string, query: string) => Promise<unknown>,
 *   change: (id: string, values: { name?: string, shared?: boolean }) => Promise<unknown>,
 *   remove: (id: string) => Promise<unknown>,
 *   me: string,
 * }} SavedViews
 */

/**
 * What `action` does (save the table as a new view; rename, share or unshare, delete the chosen
 * one); answers what to tell the person.
 * @param {SavedViews} saved @param {string} action @param {any} view @param {string} typed @param {string} query
 */
async function perform(saved, action, view, typed, query) {
  if (action === "save") {
    if (!typed) return "Type a name for the view first.";
    await saved.save(typed, query);
    return `Saved “${typed}”.`;
  }
  if (!view) return "";
  if (action === "rename") {
    if (!typed) return "Type the view's new name first.";
    await saved.change(view.id, { name: typed });
    return `Renamed to “${typed}”.`;
  }
  if (action === "share") {
    await saved.change(view.id, { shared: !view.shared });
    return view.shared ? `“${view.name}” is yours alone again.` : `“${view.name}” is shared with the organisation.`;
  }
  await saved.remove(view.id);
  return `Deleted “${view.name}”.`;
}

/**
 * @param {{
 *   saved: SavedViews,
 *   idOf: (name: string) => string,
 *   chosen: string,
 *   query: () => string,
 *   apply: (view: { id: string, query: string }) => void,
 *   say: (text: string) => void,
 * }} options
 */
export function savedViewTools({ saved, idOf, chosen, query, apply, say }) {
  /** @type {any[]} */ let views = [];
  const select = el("select", { id: idOf("saved"), name: "saved-view" }, [el("option", { value: "" }, ["Choose…"])]);
  const name = /** @type {HTMLInputElement} */ (
    el("input", { id: idOf("view-name"), name: "view-name", maxlength: "100", autocomplete: "off" })
  );
  const own = el("div", { class: "tool saved-own", role: "group", "aria-label": "The chosen view" });

  const current = () => views.find((v) => v.id === /** @type {HTMLSelectElement} */ (select).value);

  function renderOwn() {
    const view = current();
    own.hidden = !view || view.owner?.id !== saved.me;
    own.replaceChildren(
      ...(view && !own.hidden
        ? [
            el("button", { type: "button", "data-view-action": "rename" }, ["Rename to the name typed"]),
            el("button", { type: "button", "data-view-action": "share" }, [
              view.shared ? "Stop sharing with the organisation" : "Share with the organisation",
            ]),
            el("button", { type: "button", "data-view-action": "delete" }, ["Delete view"]),
          ]
        : []),
    );
  }

  /** Lists the views again, keeping `keep` chosen when it is still there. @param {string} keep */
  async function load(keep) {
    try {
      views = await saved.list();
    } catch (error) {
      return say(`The saved views could not be listed: ${describeRefusal(error)}`);
    }
    select.replaceChildren(
      el("option", { value: "" }, ["Choose…"]),
      ...views.map((v) =>
        el("option", { value: v.id }, [
          `${v.name}${v.shared ? " (shared)" : ""}${v.owner && v.owner.id !== saved.me ? `, by ${v.owner.name}` : ""}`,
        ]),
      ),
    );
    /** @type {HTMLSelectElement} */ (select).value = views.some((v) => v.id === keep) ? keep : "";
    renderOwn();
  }

  /** Runs a change of the chosen view, then lists them again. @param {string} action */
  async function act(action) {
    const view = current();
    let done;
    try {
      done = await perform(saved, action, view, name.value.trim(), query());
      name.value = "";
    } catch (error) {
      return say(`The view was not changed: ${describeRefusal(error)}`);
    }
    // Listed again before saying so: a next action taken on the word acts on the view as it now is
    // (a share right after a rename names the new name).
    await load(action === "delete" ? "" : (view?.id ?? ""));
    say(done);
  }

  const root = el("div", { class: "table-tools" }, [
    el("div", { class: "tool" }, [el("label", { for: idOf("saved") }, ["Saved views"]), select]),
    el("div", { class: "tool" }, [el("label", { for: idOf("view-name") }, ["Name this view"]), name]),
    el("button", { type: "button", "data-view-action": "save" }, ["Save view"]),
    own,
  ]);
  select.addEventListener("change", () => {
    const view = current();
    if (view) apply(view);
    renderOwn();
  });
  root.addEventListener("click", (event) => {
    const action = /** @type {HTMLElement} */ (event.target).closest("[data-view-action]")?.getAttribute("data-view-action");
    if (action) void act(action);
  });
  void load(chosen);
  return root;
}
