import type { AnyRoute } from "../http/registry.ts";
import { EVENT_SCOPES } from "../../domain/events.ts";
import type { Scope } from "../../domain/scopes.ts";

export interface EventTypeEntry {
  type: string;
  /** The read scope a key (socket, webhook) needs to see it. */
  scope: Scope;
}

const capitalise = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/**
 * Every event type the API emits, derived rather than listed so it cannot drift: each resource
 * with an event scope is created and updated through the API; it has a `.deleted` event when the
 * registry has its delete operation (personnel, for one, are deactivated, never deleted).
 */
export function eventCatalogue(routes: AnyRoute[]): EventTypeEntry[] {
  const deletable = new Set(routes.filter((route) => route.method === "delete").map((route) => route.operationId));
  return Object.entries(EVENT_SCOPES).flatMap(([resource, scope]) => {
    const actions = ["created", "updated", ...(deletable.has(`delete${capitalise(resource)}`) ? ["deleted"] : [])];
    return actions.map((action) => ({ type: `${resource}.${action}`, scope }));
  });
}
