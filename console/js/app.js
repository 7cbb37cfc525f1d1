// @ts-check
// The console: connect with a key, show the projects and the task board of one, move tasks, and
// follow every change live. The board changes only through the store, which is fed by lists at
// start, by this console's own write answers, and by realtime events (never by refetching).

import { createApi } from "./api.js";
import { createBoard } from "./board.js";
import { createEventsPanel } from "./events-panel.js";
import { connectLive } from "./live.js";
import { createProjectsPanel } from "./projects-panel.js";
import { createStore } from "./store.js";
import { canMove, labelOf, TASK_TRANSITIONS } from "./workflow.js";

const KEY_STORAGE = "opsroom.console.key";
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * `npm run dev` prints http://127.0.0.1:8787/#key=ops_...: a fragment never reaches a server or
 * its logs. The key moves to this tab's session storage and out of the address bar at once.
 */
function keyFromFragment() {
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (!key) return;
  sessionStorage.setItem(KEY_STORAGE, key);
  history.replaceState(null, "", location.pathname + location.search);
}

/** @param {string} [error] */
function askForKey(error = "") {
  $("workspace").hidden = true;
  $("key-form").hidden = false;
  $("key-error").textContent = error;
  $("key-input").focus();
}

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

/** @param {string} key */
async function start(key) {
  const api = createApi(key);
  let self;
  try {
    self = await api.self();
  } catch (error) {
    sessionStorage.removeItem(KEY_STORAGE);
    return askForKey(`The API refused this key: ${error.status} ${error.code}. ${error.message}`);
  }
  const scopes = new Set(self.scopes.map((/** @type {{ scope: string }} */ s) => s.scope));
  $("key-form").hidden = true;
  $("workspace").hidden = false;
  $("forget-key").hidden = false;

  const store = createStore();
  // Everything after this changeVersion arrives as events; lists fetched later may already hold
  // some of it, which the store's version check makes harmless.
  store.state.changeVersion = self.changeVersion;
  const organisation = scopes.has("organisation.read") ? await api.organisation() : null;
  $("organisation").textContent = organisation?.name ?? self.application;
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
  else showNotice("This key sees no projects (it needs projects.read).");

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
  $("forget-key").addEventListener("click", () => {
    live.stop();
    sessionStorage.removeItem(KEY_STORAGE);
    location.reload();
  });
}

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const key = /** @type {HTMLInputElement} */ ($("key-input")).value.trim();
  sessionStorage.setItem(KEY_STORAGE, key);
  void start(key);
});

keyFromFragment();
const stored = sessionStorage.getItem(KEY_STORAGE);
if (stored) void start(stored);
else askForKey();
