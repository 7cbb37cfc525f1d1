// @ts-check
// The console: as the person signed in (else off to the sign-in page), show the projects and the
// task board of one, move tasks, and follow every change live. The board changes only through the
// store, which is fed by lists at start, by this console's own write answers, and by realtime
// events (never by refetching). The realtime room is joined with a token minted with the session.

import { renderAccount } from "./account.js";
import { createApi } from "./api.js";
import { createBoard } from "./board.js";
import { createEventsPanel } from "./events-panel.js";
import { connectLive } from "./live.js";
import { createProjectsPanel } from "./projects-panel.js";
import { goToSignIn, requireSession } from "./session.js";
import { createStore } from "./store.js";
import { canMove, labelOf, TASK_TRANSITIONS } from "./workflow.js";

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} state @param {string} [detail] @param {number} [changeVersion] */
function showConnection(state, detail, changeVersion) {
  const words = { connecting: "Connecting…", "catching-up": "Catching up…", live: "Live", reconnecting: "Disconnected, reconnecting", failed: "Refused" };
  $("connection").dataset.state = state;
  const parts = [words[state] ?? state, detail, state === "live" && changeVersion !== undefined ? `changeVersion ${changeVersion}` : undefined];
  $("connection-text").textContent = parts.filter(Boolean).join(" · ");
}

/** @param {string} message */
function showNotice(message) {
  $("notice").hidden = !message;
  $("notice").textContent = message;
}

async function start() {
  const session = await requireSession();
  renderAccount($("account"), session);
  $("organisation").textContent = session.organisation.name;
  const api = createApi();
  const self = await api.self();
  const scopes = new Set(self.scopes.map((/** @type {{ scope: string }} */ s) => s.scope));
  $("workspace").hidden = false;

  const store = createStore();
  // Everything after this changeVersion arrives as events; lists fetched later may already hold
  // some of it, which the store's version check makes harmless.
  store.state.changeVersion = self.changeVersion;
  const [projects, people] = await Promise.all([
    scopes.has("projects.read") ? api.projects() : [],
    scopes.has("organisation.read") ? api.personnel() : [],
  ]);
  store.load("projects", projects);
  store.load("people", people);

  const events = createEventsPanel($("event-list"));
  const loaded = new Set();
  let connection = { state: "connecting", detail: /** @type {string | undefined} */ (undefined) };

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
      const allowed = error.details?.allowed ?? TASK_TRANSITIONS[store.state.tasks.get(task.id)?.status ?? ""] ?? [];
      const hint = error.code === "invalid_transition" ? ` Allowed now: ${allowed.map(labelOf).join(", ") || "none"}.` : "";
      showNotice(`${error.status} ${error.code}: “${task.title}” was not moved to ${labelOf(to)}. ${error.message}.${hint}`);
    }
  }
  const board = createBoard({ root: $("columns"), store, onMove });

  const projectsPanel = createProjectsPanel({ list: $("project-list"), store, onSelect: (id) => void select(id) });

  /** @param {string} projectId */
  async function select(projectId) {
    projectsPanel.select(projectId);
    $("board-heading").textContent = `Tasks · ${store.state.projects.get(projectId)?.name ?? ""}`;
    board.show(projectId);
    if (!loaded.has(projectId) && scopes.has("tasks.read")) {
      loaded.add(projectId);
      store.load("tasks", await api.tasksOf(projectId));
    }
  }

  store.subscribe((event) => {
    if (event?.type.startsWith("project.")) projectsPanel.render();
    if (event?.type === "task.updated" && event.changes?.status) board.markArrived(event.data.id);
    board.render();
    if (connection.state === "live") showConnection("live", connection.detail, store.state.changeVersion);
  });

  const first = [...store.state.projects.values()].find((p) => p.status === "active") ?? [...store.state.projects.values()][0];
  if (first) await select(first.id);
  else showNotice("No projects yet: create one through the API (POST /v1/projects).");

  const live = connectLive({
    api,
    lastApplied: () => store.state.changeVersion,
    apply(event, via) {
      const applied = store.apply(event);
      if (applied) events.add(event, via);
      return applied;
    },
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
  showNotice(`The console could not start: ${error?.message ?? error}`);
});
