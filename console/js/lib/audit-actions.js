// @ts-check
// The audit log's actions, for the settings page's filter: domain/audit.ts AUDIT_ACTIONS, which
// test/unit/audit-actions.test.ts holds this list equal to (the page loads no TypeScript).

/** @type {readonly import("../../../domain/audit.ts").AuditAction[]} */
export const AUDIT_ACTIONS = [
  "user.signed_up",
  "user.signed_in",
  "user.sign_in_failed",
  "user.signed_out",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "member.left",
  "api_key.created",
  "api_key.replaced",
  "api_key.revoked",
  "webhook.created",
  "webhook.updated",
  "webhook.secret_rotated",
  "webhook.enabled",
  "webhook.disabled",
  "webhook.deleted",
  "webhook.replayed",
  "application.registered",
  "application.updated",
  "application.secret_rotated",
  "application.deleted",
  "application.installed",
  "application.scopes_widened",
  "application.uninstalled",
  "application.code_reused",
  "application.refresh_reused",
  "organisation.updated",
  "mcp.session_started",
];
