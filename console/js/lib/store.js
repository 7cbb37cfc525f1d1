// @ts-check
// What the console knows: projects, milestones, people, labels, tasks and comments by id, and the
// last changeVersion applied. Lists, write answers and events all go through `upsert`, which keeps
// the newer version of a record, so an event replayed during a catch-up, or a list fetched after
// the change it already holds, changes nothing. A deleted record is remembered as gone (ids are
// never reused), so an older event or list arriving after the delete does not bring it back.

/** @typedef {{ id: string, version: number, [field: string]: any }} Record */
/** Who made a change: the kernel's type (domain/events.ts), as the API sends it. @typedef {import("../../../domain/events.ts").EventActor} Actor */
/**
 * An event as the API sends it: the kernel's type (domain/events.ts), its data a record.
 * @typedef {Omit<import("../../../domain/events.ts").OpsEvent, "data"> & { data: Record }} OpsEvent
 */
/** @typedef {"tasks" | "projects" | "milestones" | "people" | "labels" | "comments" | "risks" | "issues" | "entries" | "checklist"} Collection */

/** @type {{ [resource: string]: Collection }} */
const COLLECTIONS = {
  task: "tasks",
  project: "projects",
  milestone: "milestones",
  personnel: "people",
  label: "labels",
  comment: "comments",
  risk: "risks",
  issue: "issues",
  financialEntry: "entries",
  checklistItem: "checklist",
};

/** Risks, issues and financial entries of the projects opened, and checklist items of the tasks opened. */
function projectRecords() {
  const map = () => /** @type {Map<string, Record>} */ (new Map());
  return { risks: map(), issues: map(), entries: map(), checklist: map() };
}

/**
 * The store's listeners: told of each change, but within `batch(change)` the loads (and
 * markLoaded) made in `change` are told as one, at its end (a table sorts its rows once, not once a load).
 */
function createListeners() {
  /** @type {Set<(event: OpsEvent | null) => void>} */
  const listeners = new Set();
  let batching = false;
  let held = false;
  /** @param {OpsEvent | null} event */
  const notify = (event) => {
    if (batching && !event) return void (held = true);
    listeners.forEach((listener) => listener(event));
  };
  return {
    /** @param {(event: OpsEvent | null) => void} listener @returns {() => void} stops it */
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    notify,
    /** @param {() => void} change */
    batch(change) {
      batching = true;
      try {
        change();
      } finally {
        batching = false;
      }
      if (held) {
        held = false;
        notify(null);
      }
    },
  };
}

export function createStore() {
  const state = {
    /** @type {Map<string, Record>} */ tasks: new Map(),
    /** @type {Map<string, Record>} */ projects: new Map(),
    /** @type {Map<string, Record>} */ milestones: new Map(),
    /** @type {Map<string, Record>} */ people: new Map(),
    /** @type {Map<string, Record>} */ labels: new Map(),
    /** Comments of the tasks whose thread was opened (and any that arrive live). @type {Map<string, Record>} */ comments: new Map(),
    ...projectRecords(),
    /** Projects whose every task is in `tasks`: what counts made here (blocked, subtasks, progress) need. @type {Set<string>} */
    loadedProjects: new Set(),
    /** The changeVersion of the last event applied: where a catch-up starts. */
    changeVersion: 0,
  };
  /** @type {Set<string>} */
  const gone = new Set();
  const { subscribe, notify, batch } = createListeners();

  /** @param {Map<string, Record>} map @param {Record} record */
  function upsert(map, record) {
    const known = map.get(record.id);
    if (gone.has(record.id) || (known && known.version >= record.version)) return false;
    map.set(record.id, record);
    return true;
  }

  /** @param {Map<string, Record>} map @param {string} id */
  function remove(map, id) {
    gone.add(id);
    return map.delete(id);
  }

  return {
    state,
    subscribe,
    batch,
    /**
     * Records from a list or a write's answer; listeners hear `null` (not an event).
     * @param {Collection} collection @param {Record[]} records
     */
    load(collection, records) {
      let changed = false;
      for (const record of records) changed = upsert(state[collection], record) || changed;
      if (changed) notify(null);
    },
    /**
     * A record this console deleted (the answer came before the event).
     * @param {Collection} collection @param {string} id
     */
    drop(collection, id) {
      if (remove(state[collection], id)) notify(null);
    },
    /** A project's tasks are all loaded. @param {string} projectId */
    markLoaded(projectId) {
      state.loadedProjects.add(projectId);
      notify(null);
    },
    /**
     * Applies one event in changeVersion order; answers false for one already applied.
     * @param {OpsEvent} event
     */
    apply(event) {
      if (event.changeVersion <= state.changeVersion) return false;
      state.changeVersion = event.changeVersion;
      const [resource, action] = event.type.split(".");
      const collection = COLLECTIONS[resource ?? ""];
      if (collection && action === "deleted") remove(state[collection], event.data.id);
      else if (collection) upsert(state[collection], event.data);
      notify(event);
      return true;
    },
  };
}

/** @typedef {ReturnType<typeof createStore>} Store */
