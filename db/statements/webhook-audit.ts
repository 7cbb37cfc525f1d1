import type { SQL } from "drizzle-orm";
import type { AuditRequest } from "../../domain/audit.ts";
import { auditCtes, auditTarget, rowChanges, SYSTEM_ACTOR_JSON } from "./engine/audit.ts";
import { sql } from "./engine/sql-tag.ts";

// The audit entries of webhooks' writes (docs/audit-log.md), over the statement's `changed` row
// (and `locked`, the row before a change). A URL is recorded by its origin only: the path and
// query of a receiver's URL often hold its secret (Slack's incoming webhooks do), and the log
// never holds a secret.

/** A URL column's scheme, host and port. */
const originOf = (url: SQL) => sql`substring(${url} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*')`;

const target = (alias: string) => auditTarget("webhook", sql.raw(`${alias}.id`), originOf(sql.raw(`${alias}.url`)));

/** The fields whose change the log records, each as the API names it, over a webhook row `w`. */
const FIELDS = {
  url: (w: string) => originOf(sql.raw(`${w}.url`)),
  events: (w: string) => sql.raw(`${w}.events`),
  scopes: (w: string) => sql.raw(`${w}.scopes`),
  projectId: (w: string) => sql.raw(`${w}.project_id`),
  excludeOwn: (w: string) => sql.raw(`${w}.exclude_own`),
  ordered: (w: string) => sql.raw(`${w}.ordered`),
  description: (w: string) => sql.raw(`${w}.description`),
  enabled: (w: string) => sql.raw(`${w}.enabled`),
};

const fieldChanges = (before: string | null, after: string) => rowChanges(FIELDS, before, after);

export const webhookCreatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "webhook.created",
      source: sql`select c.org_id, ${target("c")} as target, ${fieldChanges(null, "c")} as changes from changed c`,
    },
    request,
  );

/**
 * A change: webhook.enabled or webhook.disabled when it only turned it on or off, else
 * webhook.updated with every field that changed (enabled among them).
 */
export const webhookUpdatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: ["webhook.updated", "webhook.enabled", "webhook.disabled"],
      source: sql`select c.org_id, ${target("l")} as target, x.changes,
                         case when x.changes ? 'enabled' and x.changes - 'enabled' = '{}'::jsonb
                              then case when c.enabled then 'webhook.enabled' else 'webhook.disabled' end
                              else 'webhook.updated' end as action
                    from changed c join locked l on l.id = c.id cross join lateral (select ${fieldChanges("l", "c")} as changes) x`,
    },
    request,
  );

export const webhookSecretRotatedAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "webhook.secret_rotated",
      source: sql`select c.org_id, ${target("c")} as target,
                         jsonb_build_object('previousSecretExpiresAt', jsonb_build_object('from', null,
                           'to', to_char(c.previous_secret_expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))) as changes
                    from changed c`,
    },
    request,
  );

export const webhookDeletedAudit = (request: AuditRequest) =>
  auditCtes(
    { action: "webhook.deleted", source: sql`select c.org_id, ${target("c")} as target, null::jsonb as changes from changed c` },
    request,
  );

/** The room turned a webhook off (its receiver answered 410): opsroom itself did, with the reason. */
export const webhookTurnedOffAudit = (request: AuditRequest) =>
  auditCtes(
    {
      action: "webhook.disabled",
      actor: SYSTEM_ACTOR_JSON,
      source: sql`select c.org_id, ${target("c")} as target,
                         jsonb_build_object('enabled', jsonb_build_object('from', true, 'to', false),
                                            'disabledReason', jsonb_build_object('from', null, 'to', c.disabled_reason)) as changes
                    from changed c`,
    },
    request,
  );

/**
 * A replay, over the webhook `webhook` the replay's first page read: recorded with the range it
 * covers when the replay goes ahead (`proceeds`, over `c`, the same checks the service makes).
 */
export const webhookReplayedAudit = (request: AuditRequest, range: { after: number; until: SQL }, proceeds: SQL) =>
  auditCtes(
    {
      action: "webhook.replayed",
      source: sql`select c.org_id, ${target("c")} as target,
                         jsonb_build_object('after', jsonb_build_object('from', null, 'to', ${range.after}::bigint),
                                            'until', jsonb_build_object('from', null, 'to', ${range.until})) as changes
                    from webhook c where ${proceeds}`,
    },
    request,
  );
