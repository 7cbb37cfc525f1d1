import type { Actor } from "../../domain/actor.ts";
import { NO_REQUEST, type AuditRequest } from "../../domain/audit.ts";
import { EVENT_READ_SCOPES, type OpsEvent } from "../../domain/events.ts";
import type { PageRequest } from "../../domain/paging.ts";
import { WEBHOOKS } from "../../domain/resources.ts";
import type { Database } from "../client.ts";
import { events, installations, organisations, webhooks } from "../schema/index.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { createRecord } from "./engine/create.ts";
import { deleteRecord } from "./engine/delete.ts";
import { eventPageColumn, firstKeptColumn, firstKeptIn, firstKeptOf, kept, parseEvent, type EventPageColumn } from "./engine/events.ts";
import type { IdempotencyRequest } from "./engine/idempotency.ts";
import { projection } from "./engine/projection.ts";
import { getRecord, listRecords } from "./engine/read.ts";
import { projectOfOrganisation } from "./engine/references.ts";
import { defineResource, type RecordOf } from "./engine/resource.ts";
import { RULES } from "./engine/rules.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";
import { updateRecord } from "./engine/update.ts";
import type { Rule } from "./engine/write-ctes.ts";
import {
  webhookCreatedAudit,
  webhookDeletedAudit,
  webhookReplayedAudit,
  webhookSecretRotatedAudit,
  webhookTurnedOffAudit,
  webhookUpdatedAudit,
} from "./webhook-audit.ts";

// Webhooks are integration settings, not operational data: their writes move no changeVersion and
// emit no event. The signing secret is stored (it is needed to sign) but is never part of the
// public record; it is answered once, by the create call (and its Idempotency-Key replay), and by
// a rotation. The secret it replaced (`previousSecret`) is hidden too.

export const webhookResource = defineResource(WEBHOOKS, webhooks, {
  emitsEvents: false,
  hidden: ["secret", "previousSecret", "receivesAfter"],
});
export type WebhookRecord = RecordOf<typeof webhookResource>;

const { locked: l } = webhookResource;

/** The settings a caller chooses, on create and on change. */
export interface WebhookSettings {
  url?: string | undefined;
  events?: string[] | undefined;
  description?: string | null | undefined;
  projectId?: string | null | undefined;
  excludeOwn?: boolean | undefined;
  ordered?: boolean | undefined;
}

export type NewWebhook = WebhookSettings & { url: string; events: string[]; secret: string };

/** A project filter must name a project of the caller's organisation (400 invalid_reference otherwise). */
const projectReferences = (projectId: string | null | undefined) => (projectId ? [projectOfOrganisation(projectId)] : []);

/** The caller's organisation's changeVersion as the statement sees it: a webhook registered or turned on now receives the events after it. */
const currentChangeVersion = sql`(select o.change_version from ${organisations} o where o.id = ${CALLER_ORG})`;

/** The caller holds every read scope the webhook carries (`l`, the locked row). */
const scopesHeld: Rule<typeof RULES.scopes_held> = { name: RULES.scopes_held, holds: sql`${l.scopes} <@ (select scopes from key)` };

/**
 * A webhook an application registered was turned off when the application was uninstalled; turning
 * it back on would deliver the organisation's events to an application it removed. It may be turned
 * on again once the application is installed again (the installation's row is the same).
 */
const installationLive: Rule<typeof RULES.installation_live> = {
  name: RULES.installation_live,
  holds: sql`${l.createdByInstallationId} is null
    or exists (select 1 from ${installations} i where i.id = ${l.createdByInstallationId} and i.uninstalled_at is null)`,
};

/**
 * What the webhook may see is the registering key's read scopes as they are now, and it records
 * that key; both are taken from the caller inside the statement.
 */
export function createWebhook(db: Database, actor: Actor, values: NewWebhook, request: AuditRequest, idempotency?: IdempotencyRequest) {
  return createRecord(db, actor, webhookResource, {
    values: {
      ...values,
      scopes: sql`array(select unnest((select scopes from key)) intersect select unnest(${sql.param(EVENT_READ_SCOPES)}::text[]) order by 1)`,
      createdByKeyId: sql`(select id from key)`,
      createdByUserId: sql`(select user_id from key)`,
      createdByInstallationId: sql`(select installation_id from key)`,
      createdByApplicationId: sql`(select (actor->>'id')::uuid from key where actor->>'type' = 'app')`,
      receivesAfter: currentChangeVersion,
    },
    references: projectReferences(values.projectId),
    idempotency,
    // The first answer carries the secret, so a replay of it must too.
    remember: sql`(${projection(webhookResource, "changed")})::jsonb || jsonb_build_object('secret', changed.secret)`,
    audit: webhookCreatedAudit(request),
  });
}

export function listWebhooks(db: Database, actor: Actor, page: PageRequest) {
  return listRecords(db, actor, webhookResource, { page, filters: {} });
}

/** The webhook, for a call that needs `scope` (its settings: webhooks.read; acting on it: webhooks.manage). */
export function getWebhook(db: Database, actor: Actor, id: string, scope: "webhooks.read" | "webhooks.manage") {
  return getRecord(db, actor, webhookResource, id, { scope });
}

export type WebhookChange = WebhookSettings & { enabled?: boolean | undefined };

/** `scopes_held` fails unless the caller holds every read scope the webhook carries. */
export function updateWebhook(db: Database, actor: Actor, id: string, patch: WebhookChange, ifMatch: number | null, request: AuditRequest) {
  // Turning a webhook back on clears why it was turned off, and it receives the events from now on
  // (one that was on already keeps its place: events in flight to it are still its).
  const values =
    patch.enabled === true
      ? {
          ...patch,
          disabledReason: null,
          receivesAfter: sql`case when ${l.enabled} then ${l.receivesAfter} else ${currentChangeVersion} end`,
        }
      : patch;
  return updateRecord(db, actor, webhookResource, {
    id,
    patch: values,
    ifMatch,
    references: projectReferences(patch.projectId),
    rules: patch.enabled === true ? [scopesHeld, installationLive] : [scopesHeld],
    audit: webhookUpdatedAudit(request),
  });
}

/**
 * A new signing secret; the one it replaces stays valid (deliveries carry both signatures) for
 * `overlapSeconds`. A second rotation within the overlap ends the first one's.
 */
export function rotateWebhookSecret(
  db: Database,
  actor: Actor,
  id: string,
  rotation: { secret: string; overlapSeconds: number },
  ifMatch: number | null,
  request: AuditRequest,
) {
  const patch = {
    secret: rotation.secret,
    previousSecret: sql`l.secret`,
    previousSecretExpiresAt: sql`now() + make_interval(secs => ${rotation.overlapSeconds})`,
  };
  return updateRecord(db, actor, webhookResource, {
    id,
    patch,
    ifMatch,
    references: [],
    rules: [scopesHeld],
    audit: webhookSecretRotatedAudit(request),
  });
}

export function deleteWebhook(db: Database, actor: Actor, id: string, ifMatch: number | null, request: AuditRequest) {
  return deleteRecord(db, actor, webhookResource, { id, ifMatch, blockers: [], audit: webhookDeletedAudit(request) });
}

/** What the room needs to deliver: every webhook of the organisation, secrets included. */
export async function webhookTargets(db: Database, orgId: string) {
  const rows = await run<{ target: WebhookRecord & { secret: string; previousSecret: string | null; receivesAfter: number } }>(
    db,
    sql`select (${projection(webhookResource, "w")})::jsonb || jsonb_build_object('secret', w.secret, 'previousSecret', w.previous_secret, 'receivesAfter', w.receives_after) as target
          from ${webhooks} w where w.org_id = ${orgId}::uuid order by w.created_at, w.id`,
  );
  return rows.map((row) => row.target);
}

export interface ReplayPage {
  caller: CallerOutcome;
  /** The webhook, or null when the caller's organisation has no such webhook. */
  webhook: WebhookRecord | null;
  /** The first changeVersion still kept (the current one + 1 when none is). */
  firstKept: number;
  /** Empty unless the caller holds every scope the webhook carries. */
  events: OpsEvent[];
  /** More events of the range follow this page (it stopped at its count or its size). */
  hasMore: boolean;
}

/**
 * A page of the events a replay to the webhook goes through: those in (after, until] (until: the
 * organisation's changeVersion when null) that its scopes may see and that are still kept, oldest
 * first. Its filter is applied by the caller (domain/event-filter.ts), as the room does.
 */
export async function replayPage(
  db: Database,
  actor: Actor,
  id: string,
  options: { after: number; until: number | null; limit: number; retentionSeconds: number },
  /** On the replay's first page: record it in the audit log when it goes ahead (its range at most `maxSpan`). */
  audit?: { request: AuditRequest; maxSpan: number },
): Promise<ReplayPage> {
  const current = sql`(select change_version from ${organisations} where id = ${CALLER_ORG})`;
  const until = sql`coalesce(${options.until}::bigint, ${current})`;
  // The service's checks (services/webhook-replay.ts): the range, scopes, on, kept; and a range not empty (a caught-up replay replays nothing).
  const proceeds = sql`c.scopes_held and c.enabled
    and (${options.until}::bigint is null or ${options.until}::bigint > ${options.after}) and ${until} <= ${current}
    and ${options.after} < ${until} and ${until} - ${options.after} <= ${audit?.maxSpan ?? 0}
    and ${options.after}::bigint + 1 >= least(${firstKeptIn(CALLER_ORG, options.retentionSeconds)}, ${current} + 1)`;
  const row = await runOne<CallerRow & { webhook: WebhookRecord | null; firstKept: string | null; page: EventPageColumn }>(
    db,
    sql`with ${callerCtes(actor, "webhooks.manage", { audited: audit !== undefined })},
        webhook as (
          select w.*, w.scopes <@ (select scopes from key) as scopes_held from ${webhooks} w
           where w.org_id = ${CALLER_ORG} and w.id = ${id}::uuid
        )${audit ? sql`, ${webhookReplayedAudit(audit.request, { after: options.after, until }, proceeds)}` : sql``}
        select ${callerColumns},
               (select ${projection(webhookResource, "webhook")} from webhook) as webhook,
               ${firstKeptColumn(options.retentionSeconds)},
               ${eventPageColumn(
                 sql`${events} e, webhook w`,
                 sql`e.org_id = ${CALLER_ORG} and w.scopes_held and e.scope = any(w.scopes)
                     and e.change_version > ${options.after}
                     and e.change_version <= coalesce(${options.until}::bigint, (select change_version from ${organisations} where id = ${CALLER_ORG}))
                     and ${kept("e", options.retentionSeconds)}`,
                 options.limit,
               )}`,
  );
  const caller = callerOf(row);
  return {
    caller,
    webhook: row.webhook,
    firstKept: firstKeptOf(row, caller),
    events: row.page.events.map(parseEvent),
    hasMore: row.page.hasMore,
  };
}

/** A receiver answered 410 Gone: stop delivering, and say why on the webhook. */
export async function disableWebhook(db: Database, orgId: string, id: string, reason: string): Promise<void> {
  await run(
    db,
    sql`with changed as (
          update ${webhooks} set enabled = false, disabled_reason = ${reason}, updated_at = now(), version = version + 1
           where org_id = ${orgId}::uuid and id = ${id}::uuid and enabled
          returning *
        ), ${webhookTurnedOffAudit(NO_REQUEST)}
        select count(*) from changed`,
  );
}

/** The webhooks a key registered (a revocation reports them: they keep delivering). */
export function webhooksRegisteredBy(db: Database, keyId: string) {
  return run<{ id: string; url: string; enabled: boolean }>(
    db,
    sql`select id, url, enabled from ${webhooks} where created_by_key_id = ${keyId}::uuid order by created_at, id`,
  );
}
