import type { OpsEvent } from "../../../domain/events.ts";
import { bold, cyan, dim } from "../style.ts";

// How `opsroom listen` shows one event on one line: time, type, changeVersion, the record's id and
// what changed ("status: todo → in_progress"). Bookkeeping fields (version, updatedAt) are left out.

const VALUE_WIDTH = 40;
const TYPE_WIDTH = 18;
const UNSHOWN = new Set(["version", "updatedAt"]);

function short(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > VALUE_WIDTH ? `${text.slice(0, VALUE_WIDTH - 1)}…` : text;
}

export function describeChanges(event: Pick<OpsEvent, "type" | "changes">): string {
  if (event.changes) {
    const fields = Object.entries(event.changes).filter(([field]) => !UNSHOWN.has(field));
    return fields.map(([field, { from, to }]) => `${field}: ${short(from)} → ${short(to)}`).join(", ");
  }
  return event.type.endsWith(".created") ? "created" : event.type.endsWith(".deleted") ? "deleted" : "";
}

export function formatEventLine(event: OpsEvent): string {
  const time = event.occurredAt.slice(11, 19);
  const recordId = typeof event.data.id === "string" ? event.data.id : event.id;
  return [dim(time), bold(event.type.padEnd(TYPE_WIDTH)), cyan(`#${event.changeVersion}`), recordId, describeChanges(event)].join("  ");
}
