// @ts-check
// The buttons that open record forms, offered only to a person whose scopes allow the write (the
// API would refuse it anyway): "New project" beside the projects, "Edit project", "New task" and
// "New milestone" above the shown project's board, "Edit task" in the task drawer, and any element
// with data-edit="<kind>:<id>" (a milestone, a row of a table) opens that record's form. Beside
// the shown project's heading, its Follow toggle (follow-toggle.js), for a session that reads projects.

import { byId, el } from "../lib/dom.js";
import { canManage, KINDS } from "../lib/schema.js";
import { createFollowToggle } from "./follow-toggle.js";

/**
 * @param {{
 *   forms: ReturnType<typeof import("./record-form.js").createRecordForms>,
 *   store: import("../lib/store.js").Store,
 *   scopes: Set<string>,
 *   shownProject: () => string | null,
 *   openTask: () => string | null,
 * }} options
 */
export function createRecordActions({ forms, store, scopes, shownProject, openTask }) {
  const may = (/** @type {string} */ kind) => canManage(scopes, /** @type {import("../lib/schema.js").Kind} */ (KINDS[kind]));
  const newProject = byId("new-project");
  newProject.hidden = !may("project");
  newProject.addEventListener("click", () => forms.open({ kind: KINDS.project, defaults: { status: "active" } }));

  /** Opens the form of a new record of `kind` in the shown project. @param {string} kind */
  function create(kind) {
    const projectId = shownProject();
    const parentId = kind === "milestone" ? (projectId ?? undefined) : undefined;
    forms.open({ kind: /** @type {any} */ (KINDS[kind]), projectId, parentId, defaults: { projectId } });
  }

  /** Opens the form of the record named "<kind>:<id>". @param {string} reference */
  function edit(reference) {
    const [name, id] = reference.split(":");
    const kind = KINDS[name ?? ""];
    const record = kind && id ? store.state[kind.collection].get(id) : undefined;
    if (kind && record) forms.open({ kind, record, projectId: record.projectId ?? shownProject() });
  }

  const projectAlert = byId("project-alert");
  const follow = createFollowToggle({ button: /** @type {HTMLButtonElement} */ (byId("project-follow")), alert: projectAlert });
  /** The project whose Follow toggle is shown: read again only when another is shown. @type {string | null} */ let followed = null;

  /** @param {string | null} projectId */
  function showFollow(projectId) {
    if (projectId === followed) return;
    followed = projectId;
    projectAlert.textContent = "";
    if (projectId && scopes.has("projects.read")) void follow.show(`/v1/projects/${encodeURIComponent(projectId)}`);
    else follow.hide();
  }

  function render() {
    const projectId = shownProject();
    showFollow(projectId);
    const actions = byId("project-actions");
    if (!projectId) return actions.replaceChildren();
    actions.replaceChildren(
      ...(may("project") ? [el("button", { type: "button", "data-edit": `project:${projectId}` }, ["Edit project"])] : []),
      ...(may("task") ? [el("button", { type: "button", class: "primary", "data-create": "task" }, ["New task"])] : []),
      ...(may("milestone") ? [el("button", { type: "button", "data-create": "milestone" }, ["New milestone"])] : []),
    );
  }

  document.addEventListener("click", (event) => {
    const target = /** @type {HTMLElement} */ (event.target);
    const editing = target.closest?.("[data-edit]")?.getAttribute("data-edit");
    const creating = target.closest?.("[data-create]")?.getAttribute("data-create");
    if (editing && may(editing.split(":")[0] ?? "")) edit(editing);
    if (creating && may(creating)) create(creating);
  });

  const drawerEdit = byId("drawer-edit");
  drawerEdit.hidden = !may("task");
  drawerEdit.addEventListener("click", () => {
    const id = openTask();
    if (id) edit(`task:${id}`);
  });

  return { render, create, edit, may };
}
