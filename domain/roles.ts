import { ALL_SCOPES, expandScopes, type Scope } from "./scopes.ts";

/**
 * A person's role in an organisation (docs/people.md "Roles"). A session's scopes come from its
 * role: owners and admins hold every scope (audit.read included: they read the audit log) and
 * manage the settings area (keys, webhooks, members); members read everything but financial entries and change tasks, risks and issues.
 * Only an owner makes or unmakes an owner, and an organisation always keeps one.
 */
export const ROLES = ["owner", "admin", "member"] as const;

export type Role = (typeof ROLES)[number];

export const ROLE_LABELS: Record<Role, string> = { owner: "Owner", admin: "Admin", member: "Member" };

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: ALL_SCOPES,
  admin: ALL_SCOPES,
  member: expandScopes(["organisation.read", "projects.read", "tasks.manage", "risks.manage", "issues.manage", "webhooks.read"]),
};

/** The roles that manage the settings area: API keys, webhooks, members and invitations. */
export const SETTINGS_ROLES: readonly Role[] = ["owner", "admin"];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
