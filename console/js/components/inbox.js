// @ts-check
// The inbox (docs/notifications.md): the top bar's Inbox button with the count of unread
// notifications, and a dialog listing them (unread first, as GET /v1/notifications orders them,
// a page at a time on its cursor), each linking to its record, with "Mark read" and "Mark all
// read". The count starts from the list's `unread` and then follows the realtime socket's
// { type: "notification" } messages, each counted once by id (the room may push one twice).

import { byId, el, formatDate, showError } from "../lib/dom.js";
import { setViewParams, viewParams } from "../lib/view-state.js";

const PAGE = 20;
const RECORD_TYPES = ["task", "project", "risk"];

/** @param {any} n */
function headline(n) {
  const who = n.actor?.name ?? "Someone";
  const what = n.record.title;
  if (n.kind === "assigned") return `${who} assigned you “${what}”`;
  if (n.kind === "mentioned") return `${who} mentioned you on “${what}”`;
  if (n.kind === "commented") return `${who} commented on “${what}”`;
  return `${who} changed “${what}”${n.fields?.length ? ` (${n.fields.join(", ")})` : ""}`;
}

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   openTask: (task: any) => void,
 *   openProject: (projectId: string, view: string) => void,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the count, the listed page and the dialog's handlers share one closure
export function createInbox({ api, openTask, openProject }) {
  const button = byId("inbox-open");
  const count = byId("inbox-count");
  const dialog = /** @type {HTMLDialogElement} */ (byId("inbox"));
  const list = byId("inbox-list");
  const more = /** @type {HTMLButtonElement} */ (byId("inbox-more"));
  const alert = byId("inbox-alert");
  let unread = 0;
  /** @type {string | null} */ let cursor = null;
  /** Every notification this page has counted or listed, by id (a live push may repeat one). @type {Map<string, any>} */
  const known = new Map();

  function showCount() {
    count.textContent = String(unread);
    count.dataset.unread = String(unread > 0);
    button.setAttribute("aria-label", `Inbox, ${unread} unread`);
  }

  /** @param {any} n */
  function item(n) {
    const link = el("a", { href: `/?${n.record.type}=${encodeURIComponent(n.record.id)}` }, [headline(n)]);
    link.addEventListener("click", (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      dialog.close();
      if (!n.read) void markRead(n);
      void open(n.record);
    });
    const parts = [link, el("p", { class: "muted" }, [formatDate(n.createdAt)])];
    if (n.excerpt) parts.push(el("p", { class: "excerpt" }, [n.excerpt]));
    if (!n.read) {
      const mark = el("button", { type: "button" }, ["Mark read"]);
      mark.addEventListener("click", () => void markRead(n));
      parts.push(mark);
    }
    return el("li", { class: n.read ? "read" : "unread", "data-id": n.id }, parts);
  }

  function render() {
    const shown = [...known.values()].filter((n) => n.listed);
    // Unread first, then newest first: the API's order, kept as pushes and marks change it.
    shown.sort((a, b) => Number(a.read) - Number(b.read) || b.createdAt.localeCompare(a.createdAt));
    list.replaceChildren(...shown.map(item));
    if (shown.length === 0) list.append(el("li", { class: "muted" }, ["Nothing here yet."]));
    more.hidden = !cursor;
    byId("inbox-read-all").toggleAttribute("disabled", unread === 0);
  }

  /** @param {boolean} [first] */
  async function load(first = false) {
    const params = new URLSearchParams({ limit: String(PAGE) });
    if (!first && cursor) params.set("cursor", cursor);
    await changing(async () => {
      const page = await api.page(`/v1/notifications?${params}`);
      if (first) for (const n of known.values()) n.listed = false;
      for (const n of page.data) known.set(n.id, { ...n, listed: true });
      cursor = page.nextCursor;
      unread = page.unread;
    });
  }

  /** Runs a call that changes what is read, then shows the count and the list; a refusal goes to the alert. @param {() => Promise<void>} change */
  async function changing(change) {
    try {
      await change();
      showCount();
      render();
    } catch (error) {
      showError(alert, error);
    }
  }

  /** @param {any} n */
  const markRead = (n) =>
    changing(async () => {
      const read = await api.write("POST", `/v1/notifications/${encodeURIComponent(n.id)}/read`, {}, {});
      if (!known.get(n.id)?.read) unread = Math.max(0, unread - 1);
      known.set(n.id, { ...read, listed: true });
    });

  const markAllRead = () =>
    changing(async () => {
      await api.write("POST", "/v1/notifications/read", {}, {});
      for (const n of known.values()) n.read = true;
      unread = 0;
    });

  /** A record as the console shows it: a task in its drawer, a project's board, a risk in its project's risks. @param {{ type: string, id: string }} record */
  async function open(record) {
    try {
      if (record.type === "task") openTask(await api.task(record.id));
      else if (record.type === "project") openProject(record.id, "board");
      else if (record.type === "risk") openProject((await api.get(`/v1/risks/${encodeURIComponent(record.id)}`)).projectId, "risks");
    } catch (error) {
      showError(byId("notice"), error);
      byId("notice").hidden = false;
    }
  }

  button.addEventListener("click", () => {
    showError(alert);
    dialog.showModal();
    void load(true);
  });
  byId("inbox-close").addEventListener("click", () => dialog.close());
  byId("inbox-read-all").addEventListener("click", () => void markAllRead());
  more.addEventListener("click", () => void load());
  showCount();
  void load(true);

  return {
    /** A notification pushed on the socket: counted once, and listed if the inbox is open. @param {any} n */
    arrived(n) {
      if (known.has(n.id)) return;
      known.set(n.id, { ...n, listed: true });
      if (!n.read) unread++;
      showCount();
      render();
    },
    /** A link from a notification mail (/?task=<id>, ?project=, ?risk=): opened once, then taken out of the address. */
    openFromAddress() {
      // ?project= is the console's own address of a project (with its view and filters): it opens
      // the project as it always did, and is left alone here; a task or risk link opens that record.
      const type = RECORD_TYPES.find((t) => t !== "project" && viewParams().has(t));
      if (!type) return;
      const id = viewParams().get(type) ?? "";
      setViewParams({ [type]: undefined });
      void open({ type, id });
    },
  };
}
