// @ts-check
// A record's files (docs/attachments.md), in the task drawer and in the dialog of a risk, issue or
// financial entry: the list, an upload by the file picker or by dropping files on the panel (its
// SHA-256 computed here, crypto.subtle, and sent with its size, as the API requires; a progress bar
// from XMLHttpRequest's upload events, which fetch does not give), a preview of images and PDFs
// (their signed link, asked for inline; the file is served sandboxed, so it runs nothing here), a
// download, and a delete that a second press confirms. With the store, the list follows the
// room's attachment.created and attachment.deleted events for the record shown: a file another
// person adds or removes shows at once. A comment's panel is compact: no line while it has no
// file, and its drop zone only where the person may add (their own comment).

import { request } from "../lib/api.js";
import { el } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";

/** What a preview shows inline: the types the API serves inline when asked. */
const IMAGES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** @param {number} bytes */
export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** @param {Blob} file */
async function sha256Of(file) {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await file.arrayBuffer()));
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The field an attachment names its record by, by the record's collection (docs/attachments.md). */
const PARENT_FIELDS = /** @type {Record<string, string>} */ ({
  tasks: "taskId",
  comments: "commentId",
  risks: "riskId",
  issues: "issueId",
  "financial-entries": "financialEntryId",
});

/** @param {any} a @param {any} b */
const oldestFirst = (a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);

/**
 * Sends a file to a record's files (`/v1/comments/{id}/attachments`): its SHA-256 computed here;
 * answers the attachment or throws the API's refusal.
 * @param {string} path @param {File} file @param {(sent: number) => void} [progress]
 */
export async function attachFile(path, file, progress = () => {}) {
  return send(path, file, await sha256Of(file), progress);
}

/**
 * POSTs the file's bytes, reporting progress; answers the attachment or throws the API's refusal.
 * @param {string} path @param {File} file @param {string} sha256 @param {(sent: number) => void} progress
 * @returns {Promise<any>}
 */
function send(path, file, sha256, progress) {
  const query = new URLSearchParams({ name: file.name, size: String(file.size), sha256 });
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `${path}?${query}`);
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.addEventListener("progress", (event) => progress(event.loaded));
    xhr.addEventListener("load", () => {
      let envelope = null;
      try {
        envelope = JSON.parse(xhr.responseText);
      } catch {
        // Not the API's envelope: said by status below.
      }
      if (xhr.status < 300 && envelope?.success) return resolve(envelope.data);
      reject(Object.assign(new Error(envelope?.message ?? `HTTP ${xhr.status}`), { status: xhr.status, code: envelope?.error?.code }));
    });
    xhr.addEventListener("error", () => reject(new Error("the upload was cut off")));
    xhr.send(file);
  });
}

/**
 * @param {{
 *   root: HTMLElement,
 *   label: string,
 *   store?: import("../lib/store.js").Store,
 *   compact?: boolean,
 *   canAdd?: boolean,
 * }} options `label` names the record's files ("Files of this task"); `store` brings the room's
 * attachment events; `compact` (a comment's) shows nothing while there is no file; `canAdd` false leaves out the drop zone.
 */
// eslint-disable-next-line max-lines-per-function -- a component: the record shown, its files and the DOM handlers share one closure
export function createFilesPanel({ root, label, store, compact = false, canAdd = true }) {
  /** @type {string | null} */ let base = null;
  /** The record shown, as its attachments name it: [field, id]. @type {[string, string] | null} */ let owner = null;
  /** @type {any[]} */ let files = [];
  /** @type {string | null} */ let confirming = null;
  const list = el("ul", { class: "files", "aria-label": label });
  const alert = el("p", { class: "error", role: "alert" });
  const uploads = el("div", { class: "uploads", "aria-live": "polite" });
  const preview = el("div", { class: "file-preview" });
  const pickerId = `file-picker-${Math.random().toString(36).slice(2)}`;
  const picker = /** @type {HTMLInputElement} */ (el("input", { type: "file", id: pickerId, multiple: true, class: "visually-hidden" }));
  const zone = el("div", { class: "drop-zone" }, [
    el("label", { for: pickerId, class: "button" }, ["Add files"]),
    picker,
    el("span", { class: "muted" }, [" or drop them here"]),
  ]);
  root.replaceChildren(list, ...(canAdd ? [zone] : []), uploads, alert, preview);

  function render() {
    list.hidden = compact && files.length === 0;
    list.replaceChildren(
      ...(files.length || compact ? [] : [el("li", { class: "muted" }, ["No files yet."])]),
      ...files.map((file) =>
        el("li", { class: "file", "data-id": file.id }, [
          el("span", { class: "file-name" }, [file.name]),
          el("span", { class: "muted" }, [` ${formatSize(file.size)} · ${file.contentType}`]),
          el("span", { class: "file-actions" }, [
            ...(IMAGES.has(file.contentType) || file.contentType === "application/pdf"
              ? [el("button", { type: "button", "data-file-action": "preview", "aria-label": `Preview ${file.name}` }, ["Preview"])]
              : []),
            el("button", { type: "button", "data-file-action": "download", "aria-label": `Download ${file.name}` }, ["Download"]),
            ...(confirming === file.id
              ? [
                  el("button", { type: "button", class: "danger", "data-file-action": "confirm-delete" }, [`Yes, delete ${file.name}`]),
                  el("button", { type: "button", "data-file-action": "keep" }, ["Keep it"]),
                ]
              : [
                  el("button", { type: "button", class: "danger", "data-file-action": "delete", "aria-label": `Delete ${file.name}` }, [
                    "Delete",
                  ]),
                ]),
          ]),
        ]),
      ),
    );
  }

  async function reload() {
    if (!base) return;
    const shown = base;
    const page = await request(`${shown}?limit=200`);
    if (base !== shown) return;
    files = page.data;
    render();
  }

  /** @param {File} file */
  async function upload(file) {
    if (!base) return;
    const path = base;
    const bar = /** @type {HTMLProgressElement} */ (
      el("progress", { max: String(file.size || 1), value: "0", "aria-label": `Uploading ${file.name}` })
    );
    const line = el("p", { class: "upload" }, [el("span", {}, [`${file.name}: `]), bar]);
    uploads.append(line);
    try {
      await attachFile(path, file, (sent) => (bar.value = sent));
      bar.value = file.size || 1;
      await reload();
    } catch (error) {
      alert.textContent = `${file.name} was not uploaded: ${describeRefusal(error)}`;
    } finally {
      line.remove();
    }
  }

  /** @param {FileList | null} chosen */
  const uploadAll = (chosen) => {
    alert.textContent = "";
    for (const file of chosen ?? []) void upload(file);
  };

  /** @param {any} file @param {boolean} inline */
  const linkOf = async (file, inline) =>
    (await request(`${base}/${encodeURIComponent(file.id)}${inline ? "?inline=true" : ""}`)).data.downloadUrl;

  /** @param {any} file */
  async function showPreview(file) {
    const url = await linkOf(file, true);
    preview.replaceChildren(
      el("p", {}, [
        el("strong", {}, [file.name]),
        " ",
        el("button", { type: "button", "data-file-action": "close-preview" }, ["Close preview"]),
      ]),
      IMAGES.has(file.contentType)
        ? el("img", { src: url, alt: file.name, class: "preview-image" })
        : el("iframe", { src: url, title: `Preview of ${file.name}`, class: "preview-pdf" }),
    );
  }

  /** @param {any} file */
  async function download(file) {
    const anchor = el("a", { href: await linkOf(file, false), download: file.name, hidden: true });
    document.body.append(anchor);
    anchor.click();
    anchor.remove();
  }

  /** @param {any} file */
  async function remove(file) {
    await request(`${base}/${encodeURIComponent(file.id)}`, { method: "DELETE" });
    confirming = null;
    if (preview.textContent?.includes(file.name)) preview.replaceChildren();
    await reload();
  }

  root.addEventListener("click", (event) => {
    const button = /** @type {HTMLElement} */ (event.target).closest("[data-file-action]");
    if (!button) return;
    const action = button.getAttribute("data-file-action");
    if (action === "close-preview") return void preview.replaceChildren();
    const id = button.closest(".file")?.getAttribute("data-id");
    const file = files.find((f) => f.id === id);
    if (!file) return;
    confirming = action === "delete" ? file.id : null;
    const work = { preview: showPreview, download, "confirm-delete": remove }[/** @type {string} */ (action)];
    if (work) work(file).catch((error) => (alert.textContent = describeRefusal(error)));
    render();
    if (action === "delete") /** @type {HTMLElement | null} */ (list.querySelector("[data-file-action=confirm-delete]"))?.focus();
  });
  picker.addEventListener("change", () => {
    uploadAll(picker.files);
    picker.value = "";
  });
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("dragging");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("dragging"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragging");
    uploadAll(event.dataTransfer?.files ?? null);
  });

  /** An attachment event of the record shown: the file added or taken away, in place. @param {import("../lib/store.js").OpsEvent | null} event */
  function follow(event) {
    if (!event || !owner || !event.type.startsWith("attachment.")) return;
    const [field, id] = owner;
    if (event.data[field] !== id) return;
    const others = files.filter((file) => file.id !== event.data.id);
    if (event.type === "attachment.deleted") {
      if (confirming === event.data.id) confirming = null;
      if (preview.textContent?.includes(event.data.name)) preview.replaceChildren();
      files = others;
    } else files = [...others, event.data].sort(oldestFirst);
    render();
  }
  if (store) {
    const stop = store.subscribe((event) => {
      // A panel whose dialog was drawn anew (a record form, a comment) stops listening.
      if (owner && !root.isConnected) stop();
      else follow(event);
    });
  }

  return {
    /** Shows the files of the record at `recordPath` (/v1/tasks/{id}). @param {string} recordPath */
    async show(recordPath) {
      const [, , collection = "", id = ""] = recordPath.split("/");
      owner = PARENT_FIELDS[collection] ? [PARENT_FIELDS[collection], decodeURIComponent(id)] : null;
      base = `${recordPath}/attachments`;
      files = [];
      confirming = null;
      alert.textContent = "";
      preview.replaceChildren();
      render();
      await reload().catch((error) => (alert.textContent = describeRefusal(error)));
    },
  };
}
