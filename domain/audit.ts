import type { EventActor } from "./events.ts";

// The audit log (docs/audit-log.md): who did what to the organisation's access and settings, from
// where. Each entry is written by the statement that makes the change it records (sign-ins and
// sign-outs, which better-auth writes, by one statement right after), chained by hash per
// organisation, and never changed or deleted except by retention.

/** Every action the audit log records: <target type>.<what happened>. A closed list. */
export const AUDIT_ACTIONS = [
  "user.signed_up",
  "user.signed_in",
  "user.sign_in_failed",
  "user.signed_out",
  "user.password_reset",
  "user.email_changed",
  "member.invited",
  "member.joined",
  "member.role_changed",
  "member.removed",
  "member.left",
  "member.linked",
  "member.unlinked",
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
  "application.token_issued",
  "application.token_revoked",
  "application.installation_ended",
  "organisation.updated",
  "mcp.session_started",
  "mail.failed",
  "attachment.deleted",
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const isAuditAction = (value: string): value is AuditAction => (AUDIT_ACTIONS as readonly string[]).includes(value);

/** The kinds of thing an entry names as its target. */
export const AUDIT_TARGET_TYPES = [
  "user",
  "member",
  "invitation",
  "api_key",
  "webhook",
  "organisation",
  "application",
  "installation",
  "mail",
  "attachment",
] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

/** What an entry's action was done to: its kind, id and name as they were then (kept after it is gone). */
export interface AuditTarget {
  type: AuditTargetType;
  id: string;
  name: string;
}

/** Who did it: as events name their actor (a key, a person, an app, or opsroom itself). */
export type AuditActor = EventActor;

/** Where the request came from, as the Worker saw it: what every entry of that request carries. */
export interface AuditRequest {
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** No request: the CLI, the sweep, the seed. */
export const NO_REQUEST: AuditRequest = { clientAddress: null, userAgent: null, requestId: null };

/** A changed field: what it was and what it became. Never a secret's value. */
export type AuditChanges = Record<string, { from: unknown; to: unknown }>;

/** An entry as GET /v1/audit-log answers it. */
export interface AuditEntry {
  id: string;
  occurredAt: string;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  changes: AuditChanges | null;
  clientAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  /** Its place in the organisation's chain (1, 2, ...), and the chain's hashes (hex). */
  sequence: number;
  previousHash: string;
  hash: string;
}

/** How long entries are kept by default (AUDIT_RETENTION_DAYS). */
export const AUDIT_RETENTION_DAYS = 365;

/** The longest user agent kept: the rest is cut off. */
export const MAX_USER_AGENT_LENGTH = 512;
