import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { OpsEvent } from "../../domain/events.ts";
import type { PageRequest } from "../../domain/paging.ts";
import type { DeliveryOutcome } from "../../domain/records.ts";
import type { Database } from "../client.ts";
import { events, webhookDeliveries, webhooks } from "../schema/index.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { eventProjection, parseEvent } from "./engine/events.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

/** One delivery attempt as the room reports it and the API shows it. */
export interface DeliveryAttempt {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  changeVersion: number | null;
  attempt: number;
  outcome: DeliveryOutcome;
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  responseExcerpt: string | null;
  nextRetryAt: string | null;
}

export type DeliveryRecord = DeliveryAttempt & { createdAt: string };

const deliveryJson = sql`json_build_object(
  'id', d.id, 'webhookId', d.webhook_id, 'eventId', d.event_id, 'eventType', d.event_type,
  'changeVersion', d.change_version, 'attempt', d.attempt, 'outcome', d.outcome,
  'responseStatus', d.response_status, 'durationMs', d.duration_ms, 'error', d.error,
  'responseExcerpt', d.response_excerpt,
  'nextRetryAt', to_char(d.next_retry_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'createdAt', to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

export interface DeliveriesOutcome {
  caller: CallerOutcome;
  /** The webhook's scopes, or null when the caller's organisation has no such webhook. */
  webhookScopes: string[] | null;
  /** Empty unless the caller holds every scope the webhook carries: the attempts show its events. */
  records: DeliveryRecord[];
  hasMore: boolean;
}

/** What the delivery log may be narrowed to; each is validated by the caller. */
export interface DeliveryFilter {
  outcome?: DeliveryAttempt["outcome"] | undefined;
  eventType?: string | undefined;
  /** Attempts made at or after this instant (ISO 8601). */
  since?: string | undefined;
}

function filterConditions(filter: DeliveryFilter): SQL[] {
  return [
    filter.outcome !== undefined && sql`and d.outcome = ${filter.outcome}`,
    filter.eventType !== undefined && sql`and d.event_type = ${filter.eventType}`,
    filter.since !== undefined && sql`and d.created_at >= ${filter.since}::timestamptz`,
  ].filter((condition) => condition !== false);
}

/** A webhook's delivery attempts, newest first; read only for a caller holding the webhook's scopes. */
export async function listDeliveries(
  db: Database,
  actor: Actor,
  webhookId: string,
  page: PageRequest,
  filter: DeliveryFilter = {},
): Promise<DeliveriesOutcome> {
  const before = page.after ? sql`and (d.created_at, d.id) < (${page.after.values[0]}::timestamptz, ${page.after.id}::uuid)` : sql``;
  const row = await runOne<CallerRow & { webhookScopes: string[] | null; deliveries: DeliveryRecord[] }>(
    db,
    sql`with ${callerCtes(actor, "webhooks.read")},
        webhook as (
          select w.scopes, w.scopes <@ (select scopes from key) as scopes_held from ${webhooks} w
           where w.org_id = ${CALLER_ORG} and w.id = ${webhookId}::uuid
        )
        select ${callerColumns},
               (select scopes from webhook) as "webhookScopes",
               (select coalesce(json_agg(x.delivery order by x.created_at desc, x.id desc), '[]'::json) from (
                  select ${deliveryJson} as delivery, d.created_at, d.id from ${webhookDeliveries} d
                   where d.org_id = ${CALLER_ORG} and d.webhook_id = ${webhookId}::uuid ${before} ${sql.join(filterConditions(filter), sql` `)}
                     and (select scopes_held from webhook)
                   order by d.created_at desc, d.id desc limit ${page.limit + 1}
               ) x) as deliveries`,
  );
  return {
    caller: callerOf(row),
    webhookScopes: row.webhookScopes,
    records: row.deliveries.slice(0, page.limit),
    hasMore: row.deliveries.length > page.limit,
  };
}

/** The event a past delivery carried, for redelivery; `event` is null when it is gone (past retention). */
export async function deliveredEvent(db: Database, actor: Actor, webhookId: string, deliveryId: string) {
  const row = await runOne<CallerRow & { delivery: { eventType: string } | null; event: OpsEvent | null }>(
    db,
    sql`with ${callerCtes(actor, "webhooks.manage")},
        delivery as (
          select d.* from ${webhookDeliveries} d
           where d.org_id = ${CALLER_ORG} and d.webhook_id = ${webhookId}::uuid and d.id = ${deliveryId}::uuid
        )
        select ${callerColumns},
               (select json_build_object('eventType', event_type) from delivery) as delivery,
               (select ${eventProjection("e")} from ${events} e, delivery where e.org_id = delivery.org_id and e.id = delivery.event_id) as event`,
  );
  return { caller: callerOf(row), delivery: row.delivery, event: row.event && parseEvent(row.event) };
}

/**
 * Stores attempts reported by the room (each has its own id, so a repeated report is harmless),
 * and moves each webhook's lastDeliveredChangeVersion up to the highest it now delivered: the
 * same statement, so the two never disagree. A replay's older event never moves it back.
 */
export async function recordDeliveries(db: Database, orgId: string, attempts: DeliveryAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await run(
    db,
    sql`with recorded as (
          insert into ${webhookDeliveries} (id, org_id, webhook_id, event_id, event_type, change_version, attempt, outcome,
                                          response_status, duration_ms, error, response_excerpt, next_retry_at)
          select a.id, ${orgId}::uuid, a."webhookId", a."eventId", a."eventType", a."changeVersion", a.attempt, a.outcome,
                 a."responseStatus", a."durationMs", a.error, a."responseExcerpt", a."nextRetryAt"
            from json_to_recordset(${JSON.stringify(attempts)}::json) as a(id uuid, "webhookId" uuid, "eventId" uuid, "eventType" text, "changeVersion" bigint,
                 attempt int, outcome text, "responseStatus" int, "durationMs" int, error text, "responseExcerpt" text, "nextRetryAt" timestamptz)
           where exists (select 1 from ${webhooks} w where w.org_id = ${orgId}::uuid and w.id = a."webhookId")
          on conflict (id) do nothing
          returning webhook_id, change_version, outcome
        ),
        delivered as (
          select webhook_id, max(change_version) as change_version from recorded
           where outcome = 'succeeded' and change_version is not null group by webhook_id
        )
        update ${webhooks} w set last_delivered_change_version = greatest(w.last_delivered_change_version, delivered.change_version)
          from delivered where w.org_id = ${orgId}::uuid and w.id = delivered.webhook_id`,
  );
}
