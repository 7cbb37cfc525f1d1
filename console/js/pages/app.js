// @ts-check
// The console: as the person signed in (else off to the sign-in page), show the projects and the
// task board of one, its views and drawers, and follow every change live. The store is fed by lists
// at start, this console's own write answers, and realtime events (never by refetching). The
// realtime room is joined with a token minted with the session.

import { renderAccount } from "../components/account.js";
import { createBoard, describeHeld } from "../components/board.js";
import { showConnection } from "../components/connection.js";
import { createDrawer } from "../components/drawer.js";
import { createEventsPanel } from "../components/events-panel.js";
import { createFilters } from "../components/filters.js";
import { createInbox } from "../components/inbox.js";
import { createMilestonesPanel } from "../components/milestones-panel.js";
import { createPalette } from "../components/palette.js";
import { createProjectsPanel } from "../components/projects-panel.js";
import { createRecordActions } from "../components/record-actions.js";
import { createRecordForms } from "../components/record-form.js";
import { createChecklist } from "../components/task-checklist.js";
import { createTimeline } from "../components/timeline.js";
import { createViews } from "../components/views.js";
import { createApi } from "../lib/api.js";
import { connectLive } from "../lib/live.js";
import { createProjectTasks } from "../lib/project-tasks.js";
import { describeMoveRefusal, describeRefusal } from "../lib/refusals.js";
import { goToSignIn, requireSession } from "../lib/session.js";
import { createStore } from "../lib/store.js";
import { setViewParams, viewParams } from "../lib/view-state.js";
import { canMove, labelOf } from "../lib/workflow.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} message */
function showNotice(message) {
  $("notice").hidden = !message;
  $("notice").textContent = message;
}

// eslint-disable-next-line max-lines-per-function -- the board page's start-up in order: the session, the data, the components wired to each other, then the room
async function start() {
  const api = createApi();
  const session = await requireSession();
  renderAccount($("account"), session);
  $("organisation").textContent = session.organisation.name;
  const self = await api.self();
  const scopes = new Set(self.scopes.map((/** @type {{ scope: string }} */ s) => s.scope));
  $("workspace").hidden = false;

  const store = createStore();
  // Everything after this changeVersion arrives as events; lists fetched later may already hold
  // some of it, which the store's version check makes harmless.
  store.state.changeVersion = self.changeVersion;
  const projectTasks = createProjectTasks({ api, store });
  const { counted, arriving, truncated } = projectTasks;
  const fetchTasks = projectTasks.fetch;
  // The tasks of the project in the address are asked for beside the lists, not after them (and
  // after /v1's changeVersion was read: they hold every change up to it).
  const named = viewParams().get("project");
  const early = named && scopes.has("tasks.read") ? { id: named, tasks: fetchTasks(named).catch(() => null) } : null;
  const [projects, people, labels] = await Promise.all([
    scopes.has("projects.read") ? api.projects() : [],
    scopes.has("organisation.read") ? api.personnel() : [],
    scopes.has("tasks.read") ? api.labels() : [],
  ]);
  store.load("projects", projects);
  store.load("people", people);
  store.load("labels", labels);

  /** Tasks named (as blockers, or blocked) that the store does not hold: fetched once each, then kept by events. */
  const asked = new Set();
  /** @param {string[]} ids */
  function ensureTasks(ids) {
    for (const id of ids) {
      if (store.state.tasks.has(id) || asked.has(id)) continue;
      asked.add(id);
      api.task(id).then(
        (task) => store.load("tasks", [task]),
        () => {}, // deleted meanwhile: its task.deleted event takes it out of every blockedBy
      );
    }
  }

  const events = createEventsPanel($("event-list"));
  const loaded = new Set();
  let connection = { state: "connecting", detail: /** @type {string | undefined} */ (undefined) };

  /** @param {import("../lib/store.js").Record} task @param {string} to */
  async function onMove(task, to) {
    if (!canMove(task.status, to)) {
      return showNotice(`“${task.title}” cannot move from ${labelOf(task.status)} to ${labelOf(to)}.`);
    }
    board.setBusy(task.id, true);
    try {
      store.load("tasks", [await api.moveTask(task.id, to)]);
      board.setBusy(task.id, false);
      showNotice("");
    } catch (error) {
      board.markRefused(task.id);
      showNotice(describeMoveRefusal(error, task, to, store.state));
    }
  }
  const forms = createRecordForms({ api, store });
  const checklist = createChecklist({ api, store, root: $("drawer-checklist"), alert: $("drawer-alert"), scopes, forms });
  const drawer = createDrawer({ api, store, me: session.user, ensureTasks, checklist });
  const filters = createFilters({ api, store, onChange: () => renderBoard() });
  const board = createBoard({
    root: $("columns"),
    store,
    onMove,
    onOpen: (task) => drawer.open(task),
    shows: (task) => filters.shows(task),
    filtered: () => filters.active(),
    counts: () =>
      shownProject && (truncated.has(shownProject) || arriving.has(shownProject)) ? (counted.get(shownProject) ?? null) : null,
    arriving: () => Boolean(shownProject && arriving.has(shownProject)),
    onMore: (status) => void showMore(status),
  });
  const milestonesPanel = createMilestonesPanel({
    section: $("milestones"),
    list: $("milestone-list"),
    store,
    editable: scopes.has("projects.manage"),
  });
  const actions = createRecordActions({
    forms,
    store,
    scopes,
    shownProject: () => shownProject,
    openTask: () => drawer.openTask(),
  });
  filters.renderLabels();

  /** @type {string | null} */ let shownProject = null;
  function renderBoard() {
    // A hidden board does no work: views.js renders it again when it is shown.
    if ($("board-view").hidden) return;
    board.render();
    milestonesPanel.render();
    const inProject = [...store.state.tasks.values()].filter((task) => task.projectId === shownProject);
    filters.summarise(inProject.filter((task) => filters.shows(task)).length, inProject.length);
    const notice = describeHeld({
      cut: Boolean(shownProject && truncated.has(shownProject)),
      loading: Boolean(shownProject && arriving.has(shownProject)),
      total: shownProject ? counted.get(shownProject)?.total : undefined,
      held: inProject.length,
    });
    $("board-cut").hidden = !notice;
    $("board-cut").textContent = notice;
  }

  /** @param {string} projectId */
  async function count(projectId) {
    const counts = await api.get(`/v1/tasks/counts?projectId=${encodeURIComponent(projectId)}`);
    counted.set(projectId, { total: counts.total, ...counts.byStatus });
    const held = [...store.state.tasks.values()].filter((task) => task.projectId === projectId).length;
    // Every task held at last: the board counts them itself from here on, live.
    if (held >= counts.total) {
      truncated.delete(projectId);
      store.markLoaded(projectId);
    }
    renderBoard();
  }
  let recount = /** @type {ReturnType<typeof setTimeout> | undefined} */ (undefined);
  /** Where each column's own list got to (GET /v1/tasks?status=), by project and status. @type {Map<string, string | null>} */
  const columnCursors = new Map();
  /** The next tasks of a column of the shown project: a page of 200 it does not hold yet. @param {string} status */
  async function showMore(status) {
    const projectId = shownProject;
    if (!projectId) return;
    const at = `${projectId}:${status}`;
    let added = 0;
    do {
      const params = new URLSearchParams({ projectId, status, limit: "200" });
      const cursor = columnCursors.get(at);
      if (cursor) params.set("cursor", cursor);
      const page = await api.page(`/v1/tasks?${params}`);
      added += page.data.filter((/** @type {any} */ task) => !store.state.tasks.has(task.id)).length;
      store.load("tasks", page.data);
      columnCursors.set(at, page.nextCursor);
    } while (added < 200 && columnCursors.get(at));
    await count(projectId);
  }

  const views = createViews({
    api,
    store,
    scopes,
    nav: $("views"),
    boardView: $("board-view"),
    tableView: $("table-view"),
    heading: $("board-heading"),
    shownProject: () => shownProject,
    tasksCut: () => Boolean(shownProject && (truncated.has(shownProject) || arriving.has(shownProject))),
    me: session.user,
    timeline: createTimeline({ api, store, manage: scopes.has("tasks.manage") }),
    onBoard: () => renderBoard(),
  });
  const projectsPanel = createProjectsPanel({ list: $("project-list"), store, onSelect: (id) => void select(id) });

  /** @param {string} projectId */
  async function select(projectId) {
    shownProject = projectId;
    projectsPanel.select(projectId);
    setViewParams({ project: projectId });
    views.show();
    actions.render();
    showNotice("");
    board.show(projectId);
    milestonesPanel.show(projectId);
    filters.showProject(projectId);
    if (loaded.has(projectId)) return;
    loaded.add(projectId);
    if (!scopes.has("tasks.read")) return store.load("milestones", scopes.has("projects.read") ? await api.milestonesOf(projectId) : []);
    // The board draws the tasks' pages as they arrive; the milestones come beside them.
    const [more, milestones] = await Promise.all([
      early?.id === projectId ? early.tasks.then((more) => more ?? fetchTasks(projectId)) : fetchTasks(projectId),
      scopes.has("projects.read") ? api.milestonesOf(projectId) : [],
    ]);
    store.load("milestones", milestones);
    // Every task held: fetchTasks marked the project loaded. Else counted (a project past the lists'
    // cap keeps the API's counts).
    if (more) await count(projectId);
    const inProject = [...store.state.tasks.values()].filter((task) => task.projectId === projectId);
    ensureTasks(inProject.flatMap((task) => task.blockedBy ?? []));
  }

  store.subscribe((event) => {
    if (!event || event.type.startsWith("project.")) projectsPanel.render();
    if (shownProject && !store.state.projects.has(shownProject)) shownProject = null;
    if (!shownProject) void selectFirst();
    if (event?.type.startsWith("label.")) filters.renderLabels();
    if (event?.type === "task.updated" && event.changes?.status) board.markArrived(event.data.id);
    if (event?.type === "task.created" || event?.type === "task.updated") ensureTasks(event.data.blockedBy ?? []);
    filters.follow(event);
    // A board holding part of its project counts again (once things settle) when its tasks change.
    if (event?.type.startsWith("task.") && truncated.has(event.data.projectId)) {
      clearTimeout(recount);
      recount = setTimeout(() => void count(event.data.projectId), 300);
    }
    renderBoard();
    if (connection.state === "live") showConnection("live", connection.detail, store.state.changeVersion);
  });

  async function selectFirst() {
    const named = store.state.projects.get(viewParams().get("project") ?? "");
    const first = named ?? [...store.state.projects.values()].find((p) => p.status === "active") ?? [...store.state.projects.values()][0];
    if (first) return select(first.id);
    board.show(null);
    actions.render();
    views.show();
    showNotice(
      actions.may("project")
        ? "No projects yet: create the first with “New project”."
        : "No projects yet, and your role cannot create one: ask an owner or admin.",
    );
  }
  await selectFirst();

  const openProject = (/** @type {string} */ id, view = "board") => void select(id).then(() => views.go(view));
  const openTask = (/** @type {any} */ task) => void select(task.projectId).then(() => (views.go("board"), drawer.open(task)));
  const openPerson = (/** @type {any} */ person) => views.go("people", { q: person.email ?? person.name });
  const palette = createPalette({ store, may: actions.may, create: actions.create, openProject, openTask, openPerson });
  const inbox = createInbox({ api, openTask, openProject });
  inbox.openFromAddress();
  $("palette-open").addEventListener("click", () => palette.open());

  const live = connectLive({
    api,
    lastApplied: () => store.state.changeVersion,
    apply(event, via) {
      const applied = store.apply(event);
      if (applied) events.add(event, via);
      return applied;
    },
    onNotification: (notification) => inbox.arrived(notification),
    onState(state, detail) {
      connection = { state, detail };
      showConnection(state, detail, store.state.changeVersion);
    },
  });
  addEventListener("pagehide", () => live.stop());
}

start().catch((error) => {
  if (error?.status === 401) return goToSignIn();
  $("workspace").hidden = false;
  showNotice(`The console could not start: ${error?.status ? describeRefusal(error) : (error?.message ?? error)}`);
});
