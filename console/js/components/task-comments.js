// @ts-check
// The drawer's comment thread: the task's comments oldest first (fetched when the thread is first
// opened, then kept by comment.* events), a form to add one, and Edit and Delete on the signed-in
// person's own comments. The list is updated in place, comment by comment, so a comment being
// edited keeps its text and focus while others' comments arrive around it. Each comment shows its
// files (files-panel.js, compact, following the room's attachment events); files chosen in the form
// are attached to the comment once it is made, and its author may add more to it later.

import { el, formatDate } from "../lib/dom.js";
import { describeRefusal } from "../lib/refusals.js";
import { attachFile, createFilesPanel } from "./files-panel.js";

/** "Ada Lovelace", "Warehouse sync (API key)". @param {import("../lib/store.js").Record} comment */
function authorOf(comment) {
  const name = comment.author?.name ?? "someone";
  return comment.author?.type === "key" ? `${name} (API key)` : name;
}

/**
 * @param {{
 *   api: import("../lib/api.js").Api,
 *   store: import("../lib/store.js").Store,
 *   me: { id: string },
 *   list: HTMLElement,
 *   form: HTMLFormElement,
 *   alert: HTMLElement,
 * }} options
 */
// eslint-disable-next-line max-lines-per-function -- a component: its state and the DOM handlers that read and change it share one closure (the thread, the form and each comment's edit and delete)
export function createComments({ api, store, me, list, form, alert }) {
  const textarea = /** @type {HTMLTextAreaElement} */ (form.querySelector("textarea"));
  const picker = /** @type {HTMLInputElement} */ (form.querySelector("input[type=file]"));
  /** Each comment's files, by its node. @type {WeakMap<HTMLElement, ReturnType<typeof createFilesPanel>>} */
  const panels = new WeakMap();
  /** @type {string | null} */ let taskId = null;
  /** Tasks whose whole thread is in the store. @type {Set<string>} */ const loaded = new Set();
  /** The rendered comments: the version shown, and whether it is being edited. @type {Map<string, { version: number, node: HTMLElement, editing: boolean }>} */
  const shown = new Map();
  const empty = el("li", { class: "muted empty" }, ["No comments yet."]);
  const loading = el("li", { class: "muted empty" }, ["Loading comments…"]);

  /** @param {unknown} error */
  const fail = (error) => (alert.textContent = `The comment was not saved: ${describeRefusal(error)}`);

  /** @param {import("../lib/store.js").Record} comment */
  const isMine = (comment) => comment.author?.type === "user" && comment.author.id === me.id;

  /** @param {string} id */
  const commentPath = (id) => `/v1/comments/${encodeURIComponent(id)}`;

  /** The files chosen in the form, attached to the comment just made; its list shown again once they are. @param {string} id @param {File[]} chosen */
  async function attachChosen(id, chosen) {
    for (const file of chosen) {
      try {
        await attachFile(`${commentPath(id)}/attachments`, file);
      } catch (error) {
        alert.textContent = `The comment was saved, but ${file.name} was not attached: ${describeRefusal(error)}`;
      }
    }
    const node = shown.get(id)?.node;
    if (node) await panels.get(node)?.show(commentPath(id));
  }

  /** @param {import("../lib/store.js").Record} comment */
  function view(comment) {
    const edited = comment.version > 1 ? " · edited" : "";
    const node = el("li", { class: "comment", "data-id": comment.id }, [
      el("p", { class: "comment-head" }, [
        el("strong", {}, [authorOf(comment)]),
        el("span", { class: "muted" }, [` · ${formatDate(comment.createdAt)}${edited}`]),
      ]),
      el("p", { class: "comment-body" }, [comment.body]),
    ]);
    const files = el("div", { class: "comment-files" });
    node.append(files);
    const panel = createFilesPanel({
      root: files,
      label: `Files of ${authorOf(comment)}'s comment`,
      store,
      compact: true,
      canAdd: isMine(comment),
    });
    panels.set(node, panel);
    void panel.show(commentPath(comment.id));
    if (isMine(comment)) node.append(actions(comment));
    return node;
  }

  /** Edit and Delete, the latter confirmed in place. @param {import("../lib/store.js").Record} comment */
  function actions(comment) {
    const bar = el("div", { class: "comment-actions" });
    const edit = el("button", { type: "button" }, ["Edit"]);
    const remove = el("button", { type: "button", class: "danger" }, ["Delete"]);
    edit.addEventListener("click", () => startEditing(comment));
    remove.addEventListener("click", () => {
      const confirm = /** @type {HTMLButtonElement} */ (el("button", { type: "button", class: "danger" }, ["Confirm delete"]));
      const keep = el("button", { type: "button" }, ["Keep it"]);
      keep.addEventListener("click", () => bar.replaceChildren(edit, remove));
      confirm.addEventListener("click", async () => {
        confirm.disabled = true;
        alert.textContent = "";
        try {
          await api.deleteComment(comment.id);
          store.drop("comments", comment.id);
        } catch (error) {
          confirm.disabled = false;
          alert.textContent = `The comment was not deleted: ${describeRefusal(error)}`;
        }
      });
      bar.replaceChildren(el("span", { class: "prompt" }, ["Delete this comment?"]), confirm, keep);
      confirm.focus();
    });
    bar.append(edit, remove);
    return bar;
  }

  /** @param {import("../lib/store.js").Record} comment */
  function startEditing(comment) {
    const entry = shown.get(comment.id);
    if (!entry) return;
    entry.editing = true;
    const field = /** @type {HTMLTextAreaElement} */ (
      el("textarea", { "aria-label": "Edit your comment", maxlength: "10000", required: true })
    );
    field.value = comment.body;
    const save = el("button", { type: "submit" }, ["Save"]);
    const cancel = el("button", { type: "button" }, ["Cancel"]);
    const editor = /** @type {HTMLFormElement} */ (
      el("form", { class: "comment-editor" }, [field, el("div", { class: "comment-actions" }, [save, cancel])])
    );
    const stop = () => {
      entry.editing = false;
      entry.version = -1; // drawn again from the store
      render();
    };
    cancel.addEventListener("click", stop);
    editor.addEventListener("submit", async (event) => {
      event.preventDefault();
      alert.textContent = "";
      try {
        store.load("comments", [await api.editComment(comment.id, field.value)]);
        stop();
      } catch (error) {
        fail(error);
      }
    });
    entry.node.replaceChildren(...[...entry.node.children].slice(0, 1), editor);
    field.focus();
  }

  /** Puts the thread's nodes in order, moving none that is already in place (an editor keeps its focus). */
  function render() {
    if (!taskId) return;
    const comments = [...store.state.comments.values()]
      .filter((comment) => comment.taskId === taskId)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    for (const [id, entry] of shown) {
      if (!comments.some((comment) => comment.id === id)) {
        entry.node.remove();
        shown.delete(id);
      }
    }
    const nodes = comments.map((comment) => {
      const entry = shown.get(comment.id);
      if (entry && (entry.editing || entry.version === comment.version)) return entry.node;
      const node = view(comment);
      entry?.node.replaceWith(node);
      shown.set(comment.id, { version: comment.version, node, editing: false });
      return node;
    });
    if (!loaded.has(taskId)) nodes.push(loading);
    else if (nodes.length === 0) nodes.push(empty);
    for (const stale of [empty, loading]) if (!nodes.includes(stale)) stale.remove();
    nodes.forEach((node, i) => {
      if (list.children[i] !== node) list.insertBefore(node, list.children[i] ?? null);
    });
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!taskId || !textarea.value.trim()) return;
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button"));
    button.disabled = true;
    alert.textContent = "";
    try {
      const comment = await api.addComment(taskId, textarea.value);
      store.load("comments", [comment]);
      textarea.value = "";
      const chosen = [...(picker.files ?? [])];
      picker.value = "";
      if (chosen.length) await attachChosen(comment.id, chosen);
    } catch (error) {
      fail(error);
    } finally {
      button.disabled = false;
    }
  });

  return {
    render,
    /** The thread of another task (fetched the first time). @param {string} id */
    async show(id) {
      if (id !== taskId) {
        taskId = id;
        shown.clear();
        list.replaceChildren();
        textarea.value = "";
        picker.value = "";
      }
      render();
      if (loaded.has(id)) return;
      try {
        const comments = await api.commentsOf(id);
        loaded.add(id);
        store.load("comments", comments);
        render();
      } catch (error) {
        alert.textContent = `The comments could not be loaded: ${describeRefusal(error)}`;
      }
    },
  };
}
