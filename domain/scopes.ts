import { RESOURCES, SCOPE_GROUPS, type ScopeGroup } from "./resources.ts";

// The closed set of scopes (docs/api.md "Keys and scopes"): each group's .read and .manage
// (domain/resources.ts SCOPE_GROUPS), in its order, then audit.read. A .manage scope always
// implies its .read scope. audit.read (the audit log, docs/audit-log.md) stands alone: no other
// scope implies it and there is no audit.manage (no one changes the log); a key holds it only when
// it was given it, and of the roles only owners and admins hold it (domain/roles.ts).

export type Scope = `${ScopeGroup}.${"read" | "manage"}` | "audit.read";

/** Every scope with what it grants, in catalogue order. */
export const SCOPES = Object.fromEntries([
  ...Object.entries(SCOPE_GROUPS).flatMap(([group, grants]) => [
    [`${group}.read`, grants.read],
    [`${group}.manage`, grants.manage],
  ]),
  ["audit.read", "Read the audit log"],
]) as Record<Scope, string>;

export const ALL_SCOPES = Object.keys(SCOPES) as Scope[];

/**
 * The read scopes of the records (domain/resources.ts), in catalogue order: what an application
 * registered dynamically without a scope may ask for (docs/apps.md "Dynamic registration").
 */
export const RECORD_READ_SCOPES = ALL_SCOPES.filter((scope) =>
  Object.values(RESOURCES).some((resource) => `${resource.scopes}.read` === scope),
);

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The scopes a key holds: the granted ones plus the .read implied by each .manage, in catalogue order. */
export function expandScopes(granted: readonly Scope[]): Scope[] {
  const held = new Set<Scope>(granted);
  for (const scope of granted) {
    if (scope.endsWith(".manage")) held.add(scope.replace(/\.manage$/, ".read") as Scope);
  }
  return ALL_SCOPES.filter((scope) => held.has(scope));
}

/** Parses a comma list such as "tasks.manage,projects.read"; throws naming the first unknown scope. */
export function parseScopeList(list: string): Scope[] {
  const names = list
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw new Error("at least one scope is required");
  for (const name of names) {
    if (!isScope(name)) throw new Error(`unknown scope "${name}" (known: ${ALL_SCOPES.join(", ")})`);
  }
  return expandScopes(names as Scope[]);
}

/** The first of `required` (in catalogue order) that `held` lacks, or undefined when all are held. */
export function firstMissingScope(required: readonly string[], held: readonly string[]): Scope | undefined {
  return ALL_SCOPES.find((scope) => required.includes(scope) && !held.includes(scope));
}
