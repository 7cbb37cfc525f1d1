// @ts-check
// Settings -> Audit log (docs/audit-log.md): who did what, when and from where, newest first, with
// the API's filters (action, actor, target, since, until) and "Show more" following nextCursor.
// Owners and admins only (their role holds audit.read).

import { request } from "../../lib/api.js";
import { byId, el, inputById, showError, submitting } from "../../lib/dom.js";
import { AUDIT_ACTIONS } from "../../lib/domain.generated.js";

/** @typedef {import("../../../../domain/audit.ts").AuditEntry} AuditEntry */

/** A change as people read it: `field: from → to`. @param {AuditEntry["changes"]} changes */
function describeChanges(changes) {
  if (!changes) return "";
  const text = (/** @type {unknown} */ value) =>
    value === null || value === undefined ? "–" : Array.isArray(value) ? value.join(", ") : String(value);
  return Object.entries(changes)
    .map(([field, { from, to }]) => `${field}: ${text(from)} → ${text(to)}`)
    .join("; ");
}

/** @param {AuditEntry} entry */
function row(entry) {
  return el("tr", { "data-id": entry.id }, [
    el("td", {}, [el("time", { datetime: entry.occurredAt }, [new Date(entry.occurredAt).toLocaleString()])]),
    el("td", {}, [`${entry.actor.name} (${entry.actor.type})`]),
    el("th", { scope: "row" }, [el("code", {}, [entry.action])]),
    el("td", {}, [`${entry.target.name} (${entry.target.type})`]),
    el("td", {}, [describeChanges(entry.changes)]),
    el("td", {}, [entry.clientAddress ?? "–"]),
  ]);
}

/** The filters as the query of GET /v1/audit-log. @param {HTMLFormElement} form */
function queryOf(form) {
  const query = new URLSearchParams({ limit: "50" });
  const action = /** @type {HTMLSelectElement} */ (form.querySelector("#audit-action")).value;
  if (action) query.set("action", action);
  for (const name of ["actor", "target"]) {
    const value = inputById(`audit-${name}`).value.trim();
    if (value) query.set(name, value);
  }
  for (const name of ["since", "until"]) {
    const value = inputById(`audit-${name}`).value;
    if (value) query.set(name, new Date(value).toISOString());
  }
  return query;
}

export async function mountAuditLog() {
  const alert = byId("audit-error");
  const rows = /** @type {HTMLElement} */ (byId("audit-table").querySelector("tbody"));
  const form = /** @type {HTMLFormElement} */ (byId("audit-filters"));
  const more = /** @type {HTMLButtonElement} */ (byId("audit-more"));
  const select = /** @type {HTMLSelectElement} */ (byId("audit-action"));
  select.append(el("option", { value: "" }, ["Any action"]), ...AUDIT_ACTIONS.map((action) => el("option", { value: action }, [action])));
  /** @type {string | null} */
  let next = null;

  /** @param {URLSearchParams} query @param {boolean} append */
  async function load(query, append) {
    const page = await request(`/v1/audit-log?${query}`);
    /** @type {AuditEntry[]} */
    const entries = page.data;
    if (append) rows.append(...entries.map(row));
    else rows.replaceChildren(...entries.map(row));
    byId("audit-empty").hidden = rows.childElementCount > 0;
    next = page.nextCursor;
    more.hidden = !next;
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void submitting(form, alert, () => load(queryOf(form), false));
  });
  more.addEventListener("click", () => {
    const query = queryOf(form);
    if (next) query.set("cursor", next);
    load(query, true).catch((error) => showError(alert, error));
  });
  await load(queryOf(form), false).catch((error) => showError(alert, error));
}
