// @ts-check
// The event stream panel: newest first, one entry per event with who made it and what changed,
// marked "live" or "catch-up" (fetched from GET /v1/events after a disconnect). Kept to the latest
// entries.

const MAX_ENTRIES = 200;

/** @param {unknown} value */
function short(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/** "status: todo → in_progress, title: … → …" @param {Record<string, { from: unknown, to: unknown }> | null} changes */
export function describeChanges(changes) {
  if (!changes) return "";
  return Object.entries(changes)
    .filter(([field]) => field !== "version" && field !== "updatedAt")
    .map(([field, { from, to }]) => `${field}: ${short(from)} → ${short(to)}`)
    .join(", ");
}

/** "by Ada Lovelace", "by API key Warehouse sync", "by opsroom" (the CLI or the seed). @param {import("../lib/store.js").Actor} [actor] */
export function describeActor(actor) {
  if (!actor) return "";
  if (actor.type === "key") return `by API key ${actor.name}`;
  return `by ${actor.name}`;
}

/** @param {HTMLElement} list */
export function createEventsPanel(list) {
  return {
    /** @param {import("../lib/store.js").OpsEvent} event @param {"live" | "catch-up"} via */
    add(event, via) {
      const item = document.createElement("li");
      const time = new Date(event.occurredAt).toLocaleTimeString();
      // A task's title, a project's or label's name, a comment's first words.
      const subject = event.data.title ?? event.data.name ?? (typeof event.data.body === "string" ? short(event.data.body) : event.data.id);
      const head = document.createElement("div");
      const type = Object.assign(document.createElement("span"), { className: "type", textContent: event.type });
      const meta = Object.assign(document.createElement("span"), {
        className: "via",
        textContent: ` #${event.changeVersion} · ${time} · ${via}`,
      });
      head.append(type, meta);
      const about = Object.assign(document.createElement("div"), { textContent: subject });
      item.append(head, about);
      const actor = describeActor(event.actor);
      if (actor) item.append(Object.assign(document.createElement("p"), { className: "actor", textContent: actor }));
      const changes = describeChanges(event.changes);
      if (changes) item.append(Object.assign(document.createElement("p"), { className: "changes", textContent: changes }));
      item.dataset.changeVersion = String(event.changeVersion);
      list.prepend(item);
      while (list.children.length > MAX_ENTRIES) list.lastElementChild?.remove();
    },
  };
}
