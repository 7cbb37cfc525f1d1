// @ts-check
// What the console knows: projects, people and tasks by id, and the last changeVersion applied.
// Lists and events both go through `upsert`, which keeps the newer version of a record, so an event
// replayed during a catch-up, or a list fetched after the change it already holds, changes nothing.

/** @typedef {{ id: string, version: number, [field: string]: any }} Record */
/** @typedef {{ type: "key" | "user" | "system", id: string | null, name: string }} Actor */
/** @typedef {{ id: string, type: string, changeVersion: number, occurredAt: string, data: Record, changes: Record | null, actor?: Actor }} OpsEvent */

const COLLECTIONS = { task: "tasks", project: "projects", personnel: "people" };

export function createStore() {
  const state = {
    /** @type {Map<string, Record>} */ tasks: new Map(),
    /** @type {Map<string, Record>} */ projects: new Map(),
    /** @type {Map<string, Record>} */ people: new Map(),
    /** The changeVersion of the last event applied: where a catch-up starts. */
    changeVersion: 0,
  };
  /** @type {Set<(event: OpsEvent | null) => void>} */
  const listeners = new Set();

  /** @param {Map<string, Record>} map @param {Record} record */
  function upsert(map, record) {
    const known = map.get(record.id);
    if (known && known.version >= record.version) return false;
    map.set(record.id, record);
    return true;
  }

  return {
    state,
    /** @param {(event: OpsEvent | null) => void} listener */
    subscribe(listener) {
      listeners.add(listener);
    },
    /**
     * Records from a list or a write's answer; listeners hear `null` (not an event).
     * @param {"tasks" | "projects" | "people"} collection @param {Record[]} records
     */
    load(collection, records) {
      let changed = false;
      for (const record of records) changed = upsert(state[collection], record) || changed;
      if (changed) listeners.forEach((listener) => listener(null));
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
      if (collection && action === "deleted") state[collection].delete(event.data.id);
      else if (collection) upsert(state[collection], event.data);
      listeners.forEach((listener) => listener(event));
      return true;
    },
  };
}

/** @typedef {ReturnType<typeof createStore>} Store */
