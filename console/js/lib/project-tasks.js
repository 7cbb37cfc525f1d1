// @ts-check
// A project's tasks as the board and the task table hold them: fetched (api.tasksOf: counted, then a
// status at a time, the statuses at once), with what the views say of them: the API's counts by
// status, whether they are still arriving, and whether the API holds more than were fetched.

/**
 * @param {{ api: import("./api.js").Api, store: import("./store.js").Store }} options
 */
export function createProjectTasks({ api, store }) {
  /** By project: its tasks by status as the API counts them (GET /v1/tasks/counts), with `total`. @type {Map<string, Record<string, number>>} */
  const counted = new Map();
  /** Projects whose tasks are still arriving. @type {Set<string>} */
  const arriving = new Set();
  /** Projects with more tasks than were fetched. @type {Set<string>} */
  const truncated = new Set();

  /**
   * Fetches a project's tasks into the store: the first page at once (the views draw it), the
   * others together once all are in (drawing a table of 2,000 rows again for each page cost more
   * than it showed), and the project marked loaded when they are all of its tasks, in the same
   * render. Answers whether the API holds more than were fetched.
   * @param {string} projectId
   */
  async function fetch(projectId) {
    arriving.add(projectId);
    /** @type {import("./store.js").Record[] | null} */
    let rest = null;
    const { more } = await api.tasksOf(projectId, {
      onCounts: (counts) => counted.set(projectId, { total: counts.total, ...counts.byStatus }),
      onPage(tasks) {
        if (rest) return void rest.push(...tasks);
        rest = [];
        store.load("tasks", tasks);
      },
    });
    // Cut before it stops arriving: a part of the tasks is never shown as all of them.
    if (more) truncated.add(projectId);
    arriving.delete(projectId);
    store.batch(() => {
      store.load("tasks", rest ?? []);
      if (!more) store.markLoaded(projectId);
    });
    return more;
  }

  return { counted, arriving, truncated, fetch };
}
