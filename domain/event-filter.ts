import { isEventPattern, matchesPattern, type OpsEvent } from "./events.ts";

// One filter over the change feed, the same on its three transports: GET /v1/events (query
// parameters), sockets (connection query parameters) and webhooks (fields of the webhook). It only
// ever narrows: the caller's read scopes decide what may be seen, the filter what is wanted.

export interface EventFilter {
  /** Event name patterns ("task.*", "project.updated", "*"); empty: every event. */
  readonly types: readonly string[];
  /** A project's own events and those of its milestones, tasks, risks, issues and financial entries. */
  readonly projectId: string | null;
  /** The events of one record. */
  readonly recordId: string | null;
  /** Leave out the changes this key or this person made (a two-way sync's own echo). */
  readonly excludeOwn: OwnWrites | null;
}

/** Whose writes are the caller's own: its key, the person, or the application. */
export interface OwnWrites {
  readonly keyId?: string | null | undefined;
  readonly userId?: string | null | undefined;
  readonly appId?: string | null | undefined;
}

export const NO_FILTER: EventFilter = { types: [], projectId: null, recordId: null, excludeOwn: null };

/** The project an event belongs to: a project's own id, or the projectId its record carries. */
export function projectOf(event: Pick<OpsEvent, "type" | "data">): string | null {
  const field = event.type.startsWith("project.") ? event.data.id : event.data.projectId;
  return typeof field === "string" ? field : null;
}

/** Whether the event was made by the caller itself. */
export function isOwn(own: OwnWrites, event: Pick<OpsEvent, "actor">): boolean {
  const { type, id } = event.actor;
  if (id === null) return false;
  return (type === "key" && id === own.keyId) || (type === "user" && id === own.userId) || (type === "app" && id === own.appId);
}

export function matchesFilter(filter: EventFilter, event: Pick<OpsEvent, "type" | "data" | "actor">): boolean {
  if (filter.types.length > 0 && !filter.types.some((pattern) => matchesPattern(pattern, event.type))) return false;
  if (filter.projectId !== null && projectOf(event) !== filter.projectId) return false;
  if (filter.recordId !== null && event.data.id !== filter.recordId) return false;
  if (filter.excludeOwn && isOwn(filter.excludeOwn, event)) return false;
  return true;
}

/**
 * "task.*,project.updated" as a list of patterns, and the first entry that is not one (an empty
 * entry included: "task.*," is refused, as GET /v1/events refuses it).
 */
export function parseTypes(list: string): { types: string[]; invalid: string | null } {
  const types = list.split(",").map((p) => p.trim());
  return { types, invalid: types.find((p) => !isEventPattern(p)) ?? null };
}
