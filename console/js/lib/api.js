// @ts-check
// The console's calls to the opsroom API, on this origin, as the person signed in: the session
// cookie goes with every call (same origin), and no key is ever held by the page.

/**
 * An error's details (docs/api.md §2): the field, the scope, the allowed moves, the open blockers...
 * @typedef {{ code?: string, field?: string, scope?: string, from?: string, allowed?: string[], blockers?: string[], subtasks?: string[], path?: string[], roles?: string[] }} RefusalDetails
 */

/** A refusal in the API's own terms: status, error.code and the error's details (allowed, field...). */
export class ApiRefusal extends Error {
  /** @param {number} status @param {RefusalDetails} error @param {string} message */
  constructor(status, error, message) {
    super(message);
    this.status = status;
    this.code = error.code ?? "unknown";
    this.details = error;
  }
}

/**
 * One call; answers the success envelope, throws an ApiRefusal with the envelope's message.
 * @param {string} path
 * @param {{ method?: string, body?: unknown, headers?: Record<string, string> }} [options]
 * @returns {Promise<any>}
 */
export async function request(path, options = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json", ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(path, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const envelope = await response.json().catch(() => null);
  if (!response.ok || envelope?.success === false) {
    // /v1 answers { message, error: { code } }; better-auth under /auth answers { code, message }.
    throw new ApiRefusal(response.status, envelope?.error ?? { code: envelope?.code }, envelope?.message ?? `HTTP ${response.status}`);
  }
  return envelope;
}

/** What a list fetches at most of one kind (a project's board, a table): past it, the page says so. */
export const MAX_LISTED = 2000;

/**
 * The pages of a list, following nextCursor, each handed to `onPage` as it arrives, up to `max`
 * records (big seeds stay responsive); answers whether the API holds more than was fetched.
 * @param {string} path @param {number} max @param {(records: import("./store.js").Record[]) => void} onPage
 */
async function pages(path, max, onPage) {
  let fetched = 0;
  let cursor = null;
  do {
    const url = new URL(path, location.origin);
    url.searchParams.set("limit", "200");
    if (cursor) url.searchParams.set("cursor", cursor);
    const page = await request(url.pathname + url.search);
    onPage(page.data);
    fetched += page.data.length;
    cursor = page.nextCursor;
  } while (cursor && fetched < max);
  return Boolean(cursor);
}

/**
 * Every page of a list, up to `max` records.
 * @param {string} path
 * @returns {Promise<import("./store.js").Record[] & { more?: boolean }>}
 */
async function all(path, max = MAX_LISTED) {
  /** @type {import("./store.js").Record[]} */
  const records = [];
  const more = await pages(path, max, (page) => records.push(...page));
  // More records than fetched: the page says what it leaves out rather than cutting silently.
  return Object.assign(records, { more });
}

/**
 * A project's tasks, each page handed to `onPage` as it arrives (the board draws the first at once),
 * after their counts by status (GET /v1/tasks/counts) to `onCounts`. A project within MAX_LISTED is
 * listed a status at a time, the statuses at once (a list's cursor is its own: one list's pages come
 * one after the other); a larger one in creation order, up to MAX_LISTED, answering `more`.
 * @param {string} projectId
 * @param {{ onCounts: (counts: { total: number, byStatus: Record<string, number> }) => void, onPage: (records: import("./store.js").Record[]) => void }} to
 * @returns {Promise<{ more: boolean }>}
 */
async function tasksOf(projectId, { onCounts, onPage }) {
  const project = encodeURIComponent(projectId);
  const counts = (await request(`/v1/tasks/counts?projectId=${project}`)).data;
  onCounts(counts);
  if (counts.total > MAX_LISTED) return { more: await pages(`/v1/tasks?projectId=${project}`, MAX_LISTED, onPage) };
  const statuses = Object.keys(counts.byStatus).filter((status) => counts.byStatus[status] > 0);
  // Each status's list to its end: tasks created since the count are fetched too.
  await Promise.all(statuses.map((status) => pages(`/v1/tasks?projectId=${project}&status=${status}`, Infinity, onPage)));
  return { more: false };
}

/**
 * Every event after `changeVersion`, oldest first (GET /v1/events pages on `after`).
 * @param {number} changeVersion
 * @returns {Promise<import("./store.js").OpsEvent[]>}
 */
async function eventsAfter(changeVersion) {
  const events = [];
  let after = String(changeVersion);
  for (;;) {
    const page = await request(`/v1/events?after=${after}&limit=200`);
    events.push(...page.data);
    if (!page.nextCursor) return events;
    after = page.nextCursor;
  }
}

/** The board's calls. */
export function createApi() {
  const call = request;
  const id = encodeURIComponent;
  const data = (/** @type {{ data: any }} */ envelope) => envelope.data;

  /**
   * The ids of a project's tasks that match a search (?q=, full text) and a label (?labelId=):
   * ids only (?fields=id), since the records themselves are in the store already.
   * @param {{ projectId: string, q?: string, labelId?: string }} filter
   */
  async function matchingTaskIds({ projectId, q, labelId }) {
    const params = new URLSearchParams({ projectId, fields: "id" });
    if (q) params.set("q", q);
    if (labelId) params.set("labelId", labelId);
    return new Set((await all(`/v1/tasks?${params}`, 10_000)).map((task) => task.id));
  }

  return {
    self: () => call("/v1"),
    projects: () => all("/v1/projects"),
    personnel: () => all("/v1/personnel?active=true"),
    labels: () => all("/v1/labels"),
    /** @param {string} projectId */
    milestonesOf: (projectId) => all(`/v1/projects/${id(projectId)}/milestones`),
    tasksOf,
    /** @param {string} taskId */
    task: (taskId) => call(`/v1/tasks/${id(taskId)}`).then(data),
    matchingTaskIds,
    /** @param {string} taskId */
    commentsOf: (taskId) => all(`/v1/tasks/${id(taskId)}/comments`),
    /** @param {string} taskId @param {string} body */
    addComment: (taskId, body) => call(`/v1/tasks/${id(taskId)}/comments`, { body: { body } }).then(data),
    /** @param {string} commentId @param {string} body */
    editComment: (commentId, body) => call(`/v1/comments/${id(commentId)}`, { method: "PATCH", body: { body } }).then(data),
    /** @param {string} commentId */
    deleteComment: (commentId) => call(`/v1/comments/${id(commentId)}`, { method: "DELETE" }).then(data),
    /** @param {string} taskId @param {string} blockerId */
    addBlocker: (taskId, blockerId) => call(`/v1/tasks/${id(taskId)}/dependencies`, { body: { blockedBy: blockerId } }).then(data),
    /** @param {string} taskId @param {string} blockerId */
    removeBlocker: (taskId, blockerId) => call(`/v1/tasks/${id(taskId)}/dependencies/${id(blockerId)}`, { method: "DELETE" }).then(data),
    /** A short-lived token for the realtime room, minted with the session. */
    realtimeToken: () => call("/v1/realtime/tokens", { method: "POST", body: {} }).then(data),
    /** @param {string} taskId @param {string} status */
    moveTask: (taskId, status) => call(`/v1/tasks/${id(taskId)}`, { method: "PATCH", body: { status } }).then(data),
    eventsAfter,
    /** Every record of a list (up to MAX_LISTED, `more` set when there are others). @param {string} path */
    list: (path) => all(path),
    /** One record. @param {string} path */
    get: (path) => call(path).then(data),
    /** One page of a list, as the API answers it (data and nextCursor). @param {string} path */
    page: (path) => call(path),
    /**
     * A write of a record: a create carries its Idempotency-Key, a change or a delete its If-Match.
     * @param {string} method @param {string} path @param {unknown} body @param {Record<string, string>} headers
     */
    write: (method, path, body, headers) => call(path, { method, body, headers }).then(data),
  };
}

/** @typedef {ReturnType<typeof createApi>} Api */
