import { RESOURCES, scopesOf } from "../../domain/resources.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { AnyRoute } from "../http/registry.ts";
import { resourceNames } from "../routes/resource-names.ts";

export interface EventTypeEntry {
  type: string;
  /** The read scope a key (socket, webhook) needs to see it. */
  scope: Scope;
}

/**
 * Every event type the API emits, derived rather than listed so it cannot drift: each declared
 * resource (domain/resources.ts) is created and updated through the API; it has a `.deleted`
 * event when the registry has its delete operation (personnel, for one, are deactivated, never
 * deleted).
 */
export function eventCatalogue(routes: AnyRoute[]): EventTypeEntry[] {
  const deletable = new Set(routes.filter((route) => route.method === "delete").map((route) => route.operationId));
  return Object.values(RESOURCES).flatMap((declaration) => {
    const actions = ["created", "updated", ...(deletable.has(resourceNames(declaration).operations.delete) ? ["deleted"] : [])];
    return actions.map((action) => ({ type: `${declaration.type}.${action}`, scope: scopesOf(declaration).read }));
  });
}
