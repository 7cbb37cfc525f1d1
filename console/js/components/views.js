// @ts-check
// The views of the workspace, one at a time, named in the address (?view=): the board, and tables
// of the shown project's tasks, milestones, risks, issues and financial entries, and of the
// organisation's people and labels (record-table.js). A view's records are listed once per project
// when it is first shown (tasks and milestones are the board's already), then follow the store,
// which the realtime room keeps current.

import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";
import { KINDS, canManage } from "../lib/schema.js";
import { setViewParams, tableParamNames, viewParams } from "../lib/view-state.js";
import { renderOverview, renderPortfolio } from "./overview.js";
import { createRecordTable } from "./record-table.js";

/** @typedef {{ id: string, label: string, kind?: import("../lib/schema.js").Kind, read?: string, list?: (projectId: string) => string, organisation?: boolean, mine?: boolean }} View */

const NOT_LINKED =
  "you are not linked to a person of the organisation, so no task is assigned to you. An owner or admin links members to people (PUT /v1/settings/members/{userId}/personnel).";

/** @type {View[]} */
export const VIEWS = [
  { id: "board", label: "Board" },
  {
    id: "mine",
    label: "My work",
    kind: KINDS.task,
    read: "tasks.read",
    list: () => "/v1/tasks?assigneeId=me",
    organisation: true,
    mine: true,
  },
  { id: "tasks", label: "Task table", kind: KINDS.task, read: "tasks.read" },
  { id: "timeline", label: "Timeline", read: "tasks.read" },
  { id: "overview", label: "Overview", read: "projects.read" },
  { id: "portfolio", label: "All projects", read: "projects.read", organisation: true },
  { id: "milestones", label: "Milestones", kind: KINDS.milestone, read: "projects.read" },
  { id: "risks", label: "Risks", kind: KINDS.risk, read: "risks.read", list: (p) => `/v1/risks?projectId=${p}` },
  { id: "issues", label: "Issues", kind: KINDS.issue, read: "issues.read", list: (p) => `/v1/issues?projectId=${p}` },
  { id: "money", label: "Money", kind: KINDS.financialEntry, read: "financials.read", list: (p) => `/v1/financial-entries?projectId=${p}` },
  { id: "people", label: "People", kind: KINDS.person, read: "organisation.read", list: () => "/v1/personnel", organisation: true },
  { id: "labels", label: "Labels", kind: KINDS.label, read: "tasks.read", organisation: true },
];

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   store: import("../lib/store.js").Store,
 *   scopes: Set<string>,
 *   nav: HTMLElement, boardView: HTMLElement, tableView: HTMLElement, heading: HTMLElement,
 *   shownProject: () => string | null,
 *   tasksCut: () => boolean,
 *   me: { id: string },
 *   timeline: ReturnType<typeof import("./timeline.js").createTimeline>,
 *   onBoard?: () => void,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the shown view, its table, what was listed and whose work is mine share one closure
export function createViews({ api, store, scopes, nav, boardView, tableView, heading, shownProject, tasksCut, me, timeline, onBoard }) {
  const views = VIEWS.filter((view) => !view.read || scopes.has(view.read));
  /** Lists fetched, by view and project, and whether the API held more. @type {Map<string, boolean>} */
  const listed = new Map();
  /** @type {ReturnType<typeof createRecordTable> | null} */ let table = null;
  /** The people the signed-in member is (their tasks are My work). @type {Set<string>} */
  const mine = new Set();

  const current = () => views.find((view) => view.id === viewParams().get("view")) ?? /** @type {View} */ (views[0]);

  function renderNav() {
    const shown = current();
    nav.replaceChildren(
      ...views.map((view) =>
        el("button", { type: "button", "data-view": view.id, "aria-current": view.id === shown.id ? "page" : undefined }, [view.label]),
      ),
    );
  }

  /** @param {View} view @param {string | null} projectId */
  async function load(view, projectId) {
    const at = `${view.id}:${view.organisation ? "" : projectId}`;
    if (!view.list || !view.kind || listed.has(at) || (!projectId && !view.organisation)) return;
    listed.set(at, false);
    let records;
    try {
      records = await api.list(view.list(projectId ?? ""));
    } catch (error) {
      listed.delete(at);
      if (current() !== view) return;
      const words = view.mine && /** @type {any} */ (error)?.status === 400 ? NOT_LINKED : describeRefusal(error);
      return void tableView.prepend(el("p", { class: "notice", role: "alert" }, [`${view.label} could not be listed: ${words}`]));
    }
    listed.set(at, Boolean(records.more));
    if (view.mine) records.forEach((task) => mine.add(task.assigneeId));
    store.load(view.kind.collection, records);
    table?.renderRows();
  }

  /** The records a table view shows. @param {View} view */
  function rowsOf(view) {
    const projectId = shownProject();
    const records = [...store.state[/** @type {import("../lib/schema.js").Kind} */ (view.kind).collection].values()];
    if (view.mine) {
      for (const person of store.state.people.values()) if (person.userId === me.id) mine.add(person.id);
      return records.filter((task) => mine.has(task.assigneeId));
    }
    return view.organisation ? records : records.filter((record) => record.projectId === projectId);
  }

  function show() {
    const view = current();
    const projectId = shownProject();
    const project = projectId ? store.state.projects.get(projectId) : undefined;
    renderNav();
    boardView.hidden = view.id !== "board";
    tableView.hidden = view.id === "board";
    heading.textContent = view.organisation
      ? view.label
      : `${view.id === "board" ? "Tasks" : view.label} · ${project?.name ?? "no project"}`;
    table = null;
    timeline.hide();
    // The board did no work while hidden: it catches up now.
    if (view.id === "board") onBoard?.();
    if (view.id === "timeline") return timeline.show(tableView, projectId);
    if (view.id === "overview" || view.id === "portfolio") return drawOverview();
    if (!view.kind) return tableView.replaceChildren();
    table = createRecordTable({
      root: tableView,
      store,
      kind: view.kind,
      rows: () => rowsOf(view),
      caption: view.mine
        ? "Tasks assigned to you, in every project"
        : view.organisation
          ? `The organisation's ${view.label.toLowerCase()}`
          : `${view.label} of ${project?.name ?? "no project"}`,
      withProject: view.mine,
      saved: savedViews(view),
      manage: canManage(scopes, view.kind) && (view.organisation || Boolean(projectId)),
      more: () => (view.id === "tasks" ? tasksCut() : (listed.get(`${view.id}:${view.organisation ? "" : projectId}`) ?? false)),
    });
    table.render();
    void load(view, projectId);
  }

  /** Shows view `id`, its table's state cleared but for `params`. @param {string} id @param {Record<string, string>} [params] */
  function go(id, params = {}) {
    const cleared = Object.fromEntries(tableParamNames().map((name) => [name, undefined]));
    setViewParams({ ...cleared, view: id === "board" ? undefined : id, ...params }, { push: true });
    show();
  }

  nav.addEventListener("click", (event) => {
    const id = /** @type {HTMLElement} */ (event.target).closest("[data-view]")?.getAttribute("data-view");
    if (id && id !== current().id) go(id);
  });
  addEventListener("popstate", show);
  /** Saved views of a table's list (GET and POST /v1/settings/views), by the list's path. @param {View} view */
  function savedViews(view) {
    /** @type {Record<string, string>} */
    const resources = {
      tasks: "tasks",
      risks: "risks",
      issues: "issues",
      entries: "financial-entries",
      milestones: "milestones",
      people: "personnel",
    };
    const resource = resources[view.kind?.collection ?? ""];
    if (!resource) return undefined;
    return {
      // A whole list (it takes no ?limit=): GET answers every view at once.
      list: () => api.get(`/v1/settings/views?resource=${resource}`),
      /** @param {string} name @param {string} query */
      save: (name, query) => api.write("POST", "/v1/settings/views", { name, resource, query }, {}),
      /** @param {string} id @param {{ name?: string, shared?: boolean }} values */
      change: (id, values) => api.write("PATCH", `/v1/settings/views/${encodeURIComponent(id)}`, values, {}),
      /** @param {string} id */
      remove: (id) => api.write("DELETE", `/v1/settings/views/${encodeURIComponent(id)}`, undefined, {}),
      me: me.id,
    };
  }

  /** The overview's counts as last drawn: fetched again (at most one call in flight) when the store changes. */
  let drawing = false;
  let again = false;
  async function drawOverview() {
    const view = current().id;
    const projectId = shownProject();
    if (view !== "overview" && view !== "portfolio") return;
    if (drawing) return void (again = true);
    drawing = true;
    try {
      const picture =
        view === "portfolio"
          ? renderPortfolio(await api.list("/v1/overview"))
          : projectId
            ? renderOverview(await api.get(`/v1/projects/${encodeURIComponent(projectId)}/summary`))
            : "";
      if (current().id === view) tableView.replaceChildren(picture);
    } catch (error) {
      tableView.replaceChildren(
        el("p", { class: "notice", role: "alert" }, [`The overview could not be drawn: ${describeRefusal(error)}`]),
      );
    } finally {
      drawing = false;
    }
    if (again) {
      again = false;
      void drawOverview();
    }
  }
  store.subscribe(() => (table ? table.renderRows() : void drawOverview()));

  return { show, current, go };
}
