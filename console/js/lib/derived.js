// @ts-check
// What the console works out from the tasks it holds, the way the API does (docs/api.md §4):
// whether a task is blocked, its subtasks, the tasks it blocks, a milestone's progress. The API
// answers some of these as derived fields (subtaskCount, subtasksDone, blocking, progress), but a
// derived field moves without an event of its own: a subtask moving to done changes its parent's
// subtasksDone with no task.updated of the parent. So they are counted here from the live tasks,
// and the API's own value is used only where the console does not hold every task it counts.

/** @typedef {import("./store.js").Record} Record */
/** @typedef {import("./store.js").Store["state"]} State */

/** Done and cancelled tasks hold nothing up (domain/records.ts CLOSED_TASK_STATUSES). @param {string} status */
export const isClosed = (status) => status === "done" || status === "cancelled";

/**
 * The task's blockers as far as they are known: `open` those neither done nor cancelled, `closed`
 * the others, `unknown` the ids of blockers the console has not loaded (another project's).
 * @param {Record} task @param {State} state
 */
export function blockersOf(task, state) {
  /** @type {{ open: Record[], closed: Record[], unknown: string[] }} */
  const blockers = { open: [], closed: [], unknown: [] };
  for (const id of task.blockedBy ?? []) {
    const blocker = state.tasks.get(id);
    if (!blocker) blockers.unknown.push(id);
    else (isClosed(blocker.status) ? blockers.closed : blockers.open).push(blocker);
  }
  return blockers;
}

/**
 * The task's direct subtasks, done and in all (the API's subtasksDone and subtaskCount).
 * @param {Record} task @param {State} state
 */
export function subtaskCounts(task, state) {
  if (!state.loadedProjects.has(task.projectId)) return { done: task.subtasksDone ?? 0, count: task.subtaskCount ?? 0 };
  const subtasks = subtasksOf(task, state);
  return { done: subtasks.filter((subtask) => subtask.status === "done").length, count: subtasks.length };
}

/**
 * In the API's order (created, then id): the store holds tasks in the order they arrived, which a
 * board's lists (a status at a time, at once) do not keep.
 * @param {Record} a @param {Record} b
 */
const byCreation = (a, b) => String(a.createdAt ?? "").localeCompare(String(b.createdAt ?? "")) || a.id.localeCompare(b.id);

/** @param {Record} task @param {State} state */
export function subtasksOf(task, state) {
  return [...state.tasks.values()].filter((other) => other.parentId === task.id).sort(byCreation);
}

/**
 * The ids of the tasks this one blocks: those held whose blockedBy names it (kept live by their
 * events), and, of the API's `blocking`, those the console does not hold.
 * @param {Record} task @param {State} state
 */
export function blockingOf(task, state) {
  const held = [...state.tasks.values()]
    .filter((other) => other.blockedBy?.includes(task.id))
    .sort(byCreation)
    .map((other) => other.id);
  const elsewhere = (task.blocking ?? []).filter((/** @type {string} */ id) => !state.tasks.has(id));
  return [...held, ...elsewhere];
}

/**
 * A milestone's progress (its tasks counted by status): done / (total - cancelled) in whole
 * percent rounded down, 0 with none, as the API's `progress`.
 * @param {Record} milestone @param {State} state
 * @returns {{ total: number, done: number, cancelled: number, open: number, percentDone: number }}
 */
export function progressOf(milestone, state) {
  if (!state.loadedProjects.has(milestone.projectId))
    return milestone.progress ?? { total: 0, done: 0, cancelled: 0, open: 0, percentDone: 0 };
  const tasks = [...state.tasks.values()].filter((task) => task.milestoneId === milestone.id);
  const done = tasks.filter((task) => task.status === "done").length;
  const cancelled = tasks.filter((task) => task.status === "cancelled").length;
  const counted = tasks.length - cancelled;
  return { total: tasks.length, done, cancelled, open: counted - done, percentDone: counted > 0 ? Math.floor((100 * done) / counted) : 0 };
}
