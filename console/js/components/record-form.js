// @ts-check
// The form that makes, changes and deletes a record of any kind, in a dialog: its fields are the
// API's request schema (lib/schema.js, form-fields.js). A create carries an Idempotency-Key, the
// same one for the same body (a double click or a retry makes one record); a change sends only the
// fields changed, and a change or delete sends If-Match with the version the form was opened on.
// A refusal is shown at the field the API names (error.field, and each of error.issues) and creates
// nothing; a 412 shows the person's change beside the record as it is now, to choose between.
// A risk's form has its Follow toggle beside the heading (follow-toggle.js).

import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";
import { fieldsOf, operationOf } from "../lib/schema.js";
import { showConflict } from "./conflict.js";
import { createFilesPanel } from "./files-panel.js";
import { createFollowToggle } from "./follow-toggle.js";
import { controlId, fieldRow, readField } from "./form-fields.js";

/** The kinds whose records hold files (docs/attachments.md); a task's are in its drawer. */
const WITH_FILES = new Set(["risk", "issue", "financialEntry"]);
/** The kinds a person follows by hand from their form (docs/notifications.md); a task's toggle is in its drawer, a project's beside its heading. */
const FOLLOWED = new Set(["risk"]);

/** @typedef {import("../lib/schema.js").Kind} Kind */
/** @typedef {{ kind: Kind, record?: any, parentId?: string, projectId?: string | null, defaults?: Record<string, unknown> }} FormRequest */

/** @param {unknown} a @param {unknown} b */
const same = (a, b) =>
  JSON.stringify(Array.isArray(a) ? [...a].sort() : (a ?? null)) === JSON.stringify(Array.isArray(b) ? [...b].sort() : (b ?? null));

/** The path of a record (/v1/risks/<id>), from its kind's update. @param {Kind} kind @param {any} record */
const pathOf = (kind, record) =>
  /** @type {NonNullable<ReturnType<typeof operationOf>>} */ (operationOf("update", kind)).path.replace(
    "{id}",
    encodeURIComponent(record.id),
  );

/**
 * @param {{ api: import("../lib/api.js").Api, store: import("../lib/store.js").Store }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: the open request, its keys and the DOM handlers share one closure
export function createRecordForms({ api, store }) {
  const dialog = /** @type {HTMLDialogElement} */ (el("dialog", { class: "record-dialog", "aria-labelledby": "record-title" }));
  document.body.append(dialog);
  /** @type {FormRequest | null} */ let request = null;
  /** Idempotency keys of this form's creates, by body: the same body is the same create. */
  /** @type {Map<string, string>} */ let keys = new Map();
  /** @type {HTMLElement | null} */ let opener = null;

  const form = () => /** @type {HTMLFormElement} */ (dialog.querySelector("form"));
  const alert = () => /** @type {HTMLElement} */ (dialog.querySelector(".form-alert"));

  /** @param {FormRequest} next */
  function open(next) {
    request = next;
    keys = new Map();
    opener = /** @type {HTMLElement | null} */ (document.activeElement);
    render(next.record ?? next.defaults ?? {});
    if (!dialog.open) dialog.showModal();
    /** @type {HTMLElement | null} */ (dialog.querySelector("input, select, textarea"))?.focus();
  }

  /** @param {Record<string, any>} values */
  function render(values) {
    if (!request) return;
    const { kind, record } = request;
    const verb = record ? "update" : "create";
    const context = { store, projectId: request.projectId ?? record?.projectId ?? null, recordId: record?.id ?? null };
    const heading = record ? `Edit ${kind.noun} “${kind.titleOf(record)}”` : `New ${kind.noun}`;
    const canDelete = Boolean(record && operationOf("delete", kind));
    // The form is opened only with the kind's manage scope, which holds its read: the API's GET, PUT and DELETE of the subscription answer.
    const follow =
      record && FOLLOWED.has(kind.key) ? el("button", { type: "button", "aria-pressed": "false", hidden: true }, ["Follow"]) : null;
    dialog.replaceChildren(
      el("form", { class: "record-form", novalidate: false }, [
        el("div", { class: "record-head" }, [el("h2", { id: "record-title" }, [heading]), ...(follow ? [follow] : [])]),
        el("p", { class: "form-alert error", role: "alert" }),
        el("div", { class: "conflict-slot" }),
        ...fieldsOf(verb, kind).map((field) => fieldRow(field, values[field.name], context)),
        el("div", { class: "form-actions" }, [
          el("button", { type: "submit", class: "primary" }, [record ? "Save changes" : `Create ${kind.noun}`]),
          el("button", { type: "button", "data-action": "cancel" }, ["Cancel"]),
          ...(canDelete ? [el("button", { type: "button", class: "danger", "data-action": "delete" }, [`Delete ${kind.noun}`])] : []),
        ]),
      ]),
    );
    if (record && WITH_FILES.has(kind.key)) showFiles(kind, record);
    if (follow) void createFollowToggle({ button: /** @type {HTMLButtonElement} */ (follow), alert: alert() }).show(pathOf(kind, record));
  }

  /** The record's files, below its form (outside it: their buttons submit nothing). @param {Kind} kind @param {any} record */
  function showFiles(kind, record) {
    const root = el("section", { class: "files-section", "aria-label": `Files of this ${kind.noun}` });
    dialog.append(el("h3", {}, ["Files"]), root);
    void createFilesPanel({ root, label: `Files of this ${kind.noun}`, store }).show(pathOf(kind, record));
  }

  /** The fields to send: on a create every one filled in, on a change those that differ from the record. */
  function bodyOf() {
    if (!request) return {};
    const { kind, record } = request;
    /** @type {Record<string, unknown>} */ const body = {};
    for (const field of fieldsOf(record ? "update" : "create", kind)) {
      const value = readField(form(), field);
      if (value === undefined) continue;
      if (record ? !same(value, record[field.name]) : value !== null && !(Array.isArray(value) && value.length === 0))
        body[field.name] = value;
    }
    return body;
  }

  /** Marks the fields the refusal names, and says the rest in the form's alert. @param {any} error */
  function showRefusal(error) {
    const issues = /** @type {{ field: string, message: string }[]} */ (error?.details?.issues ?? []);
    const named = issues.length ? issues : error?.details?.field ? [{ field: error.details.field, message: error.message }] : [];
    let first = /** @type {HTMLElement | null} */ (null);
    for (const issue of named) {
      const name = issue.field.split(".")[0] ?? "";
      const line = dialog.querySelector(`#${CSS.escape(controlId(name))}-error`);
      const input = /** @type {HTMLElement | null} */ (dialog.querySelector(`#${CSS.escape(controlId(name))}`));
      if (!line || !input) continue;
      line.textContent = issue.message;
      input.setAttribute("aria-invalid", "true");
      first ??= input;
    }
    alert().textContent = `Not saved: ${describeRefusal(error)}`;
    first?.focus();
  }

  function clearRefusal() {
    alert().textContent = "";
    dialog.querySelectorAll(".field-error").forEach((line) => (line.textContent = ""));
    dialog.querySelectorAll("[aria-invalid]").forEach((input) => input.removeAttribute("aria-invalid"));
  }

  /** @param {HTMLButtonElement[]} buttons @param {() => Promise<void>} action */
  async function busy(buttons, action) {
    buttons.forEach((button) => (button.disabled = true));
    try {
      await action();
    } finally {
      buttons.forEach((button) => (button.disabled = false));
    }
  }

  /**
   * Sends the change (or create); a 412 opens the conflict view.
   * @param {Record<string, unknown>} body @param {number} [version] @returns {Promise<void>}
   */
  async function save(body, version) {
    if (!request) return;
    const { kind, record } = request;
    const operation = /** @type {NonNullable<ReturnType<typeof operationOf>>} */ (operationOf(record ? "update" : "create", kind));
    const path = operation.path.replace("{id}", encodeURIComponent(record?.id ?? request.parentId ?? ""));
    const text = JSON.stringify(body);
    if (!record && !keys.has(text)) keys.set(text, crypto.randomUUID());
    /** @type {Record<string, string>} */
    const headers = record
      ? { "if-match": `"${version ?? record.version}"` }
      : { "idempotency-key": /** @type {string} */ (keys.get(text)) };
    try {
      const saved = await api.write(operation.method, path, body, headers);
      store.load(kind.collection, [saved]);
      dialog.close();
    } catch (error) {
      if (record && /** @type {any} */ (error)?.status === 412) return conflict(body, (newer) => save(body, newer));
      showRefusal(error);
    }
  }

  /**
   * Someone changed the record first: theirs beside the person's change, and `retry` on the newer version if they keep theirs.
   * @param {Record<string, unknown>} mine @param {(version: number) => Promise<void>} retry
   */
  async function conflict(mine, retry) {
    if (!request?.record) return;
    const { kind, record } = request;
    const theirs = await api.get(pathOf(kind, record));
    store.load(kind.collection, [theirs]);
    alert().textContent = `Not saved: someone changed this ${kind.noun} while you were editing it. Compare and choose below.`;
    showConflict({
      slot: /** @type {HTMLElement} */ (dialog.querySelector(".conflict-slot")),
      kind,
      mine,
      theirs,
      store,
      keepMine: () => retry(theirs.version),
      takeTheirs: () => {
        if (request) request.record = theirs;
        render(theirs);
      },
    });
  }

  /** @param {number} [version] @returns {Promise<void>} */
  async function remove(version) {
    if (!request?.record) return;
    const { kind, record } = request;
    const operation = /** @type {NonNullable<ReturnType<typeof operationOf>>} */ (operationOf("delete", kind));
    try {
      await api.write(operation.method, operation.path.replace("{id}", encodeURIComponent(record.id)), undefined, {
        "if-match": `"${version ?? record.version}"`,
      });
      store.drop(kind.collection, record.id);
      dialog.close();
    } catch (error) {
      if (/** @type {any} */ (error)?.status === 412) return conflict({}, (newer) => remove(newer));
      showRefusal(error);
    }
  }

  dialog.addEventListener("submit", (event) => {
    event.preventDefault();
    clearRefusal();
    const body = bodyOf();
    if (request?.record && Object.keys(body).length === 0) return void dialog.close();
    void busy([.../** @type {NodeListOf<HTMLButtonElement>} */ (form().querySelectorAll("button"))], () => save(body));
  });
  dialog.addEventListener("click", (event) => {
    const action = /** @type {HTMLElement} */ (event.target).closest("[data-action]")?.getAttribute("data-action");
    if (action === "cancel") dialog.close();
    if (action === "delete") confirmDelete();
    if (action === "confirm-delete")
      void busy([.../** @type {NodeListOf<HTMLButtonElement>} */ (form().querySelectorAll("button"))], () => remove());
  });
  dialog.addEventListener("close", () => {
    request = null;
    if (opener?.isConnected) opener.focus();
  });

  /** A second press confirms: the delete button asks, naming the record. */
  function confirmDelete() {
    if (!request?.record) return;
    const actions = /** @type {HTMLElement} */ (dialog.querySelector(".form-actions"));
    actions.replaceChildren(
      el("p", { class: "confirm" }, [`Delete ${request.kind.noun} “${request.kind.titleOf(request.record)}”? This cannot be undone.`]),
      el("button", { type: "button", class: "danger", "data-action": "confirm-delete" }, [`Yes, delete this ${request.kind.noun}`]),
      el("button", { type: "button", "data-action": "cancel" }, ["Keep it"]),
    );
    /** @type {HTMLElement} */ (actions.querySelector("[data-action=confirm-delete]")).focus();
  }

  return { open, dialog };
}
