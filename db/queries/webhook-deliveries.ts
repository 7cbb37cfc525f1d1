import { sql } from "drizzle-orm";
import type { OpsEvent } from "../../functions/lib/events.ts";
import type { Database } from "../client.ts";
import { actorColumns, actorCtes, assertAllowed, type Actor } from "./actor.ts";
import { eventProjection } from "./events.ts";
import { notFound } from "./outcomes.ts";
import type { PageRequest } from "./paging.ts";
import { runOne } from "./sql.ts";

/** One delivery attempt as the room reports it and the API shows it. */
export interface DeliveryAttempt {
  id: string;
  webhookId: string;
  eventId: string;
  eventType: string;
  changeVersion: number | null;
  attempt: number;
  outcome: "succeeded" | "retrying" | "failed";
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  responseExcerpt: string | null;
  nextRetryAt: string | null;
  createdAt?: string;
}

const deliveryJson = sql`json_build_object(
  'id', d.id, 'webhookId', d.webhook_id, 'eventId', d.event_id, 'eventType', d.event_type,
  'changeVersion', d.change_version, 'attempt', d.attempt, 'outcome', d.outcome,
  'responseStatus', d.response_status, 'durationMs', d.duration_ms, 'error', d.error,
  'responseExcerpt', d.response_excerpt,
  'nextRetryAt', to_char(d.next_retry_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'createdAt', to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))`;

/** A webhook's delivery attempts, newest first. */
export async function listDeliveries(db: Database, actor: Actor, webhookId: string, page: PageRequest) {
  const before = page.after ? sql`and (d.created_at, d.id) < (${page.after.createdAt}::timestamptz, ${page.after.id}::uuid)` : sql``;
  const row = await runOne<{ key_found: boolean; allowed: boolean; found: boolean; deliveries: (DeliveryAttempt & { createdAt: string })[] }>(
    db,
    sql`with ${actorCtes(actor, "webhooks.read")}
        select ${actorColumns},
               exists (select 1 from webhooks w where w.org_id = (select org_id from auth) and w.id = ${webhookId}::uuid) as found,
               (select coalesce(json_agg(x.delivery order by x.created_at desc, x.id desc), '[]'::json) from (
                  select ${deliveryJson} as delivery, d.created_at, d.id from webhook_deliveries d
                   where d.org_id = (select org_id from auth) and d.webhook_id = ${webhookId}::uuid ${before}
                   order by d.created_at desc, d.id desc limit ${page.limit + 1}
               ) x) as deliveries`,
  );
  assertAllowed(row, actor, "webhooks.read");
  if (!row.found) throw notFound("webhook");
  return { records: row.deliveries.slice(0, page.limit), hasMore: row.deliveries.length > page.limit };
}

/** The event a past delivery carried, for redelivery; null when it is gone (older than 30 days). */
export async function deliveredEvent(db: Database, actor: Actor, webhookId: string, deliveryId: string) {
  const row = await runOne<{ key_found: boolean; allowed: boolean; delivery: { eventType: string } | null; event: OpsEvent | null }>(
    db,
    sql`with ${actorCtes(actor, "webhooks.manage")},
        delivery as (
          select d.* from webhook_deliveries d
           where d.org_id = (select org_id from auth) and d.webhook_id = ${webhookId}::uuid and d.id = ${deliveryId}::uuid
        )
        select ${actorColumns},
               (select json_build_object('eventType', event_type) from delivery) as delivery,
               (select ${eventProjection("e")} from events e, delivery where e.org_id = delivery.org_id and e.id = delivery.event_id) as event`,
  );
  assertAllowed(row, actor, "webhooks.manage");
  if (!row.delivery) throw notFound("delivery");
  return { eventType: row.delivery.eventType, event: row.event && { ...row.event, changeVersion: Number(row.event.changeVersion) } };
}

/** Stores attempts reported by the room (each has its own id, so a repeated report is harmless). */
export async function recordDeliveries(db: Database, orgId: string, attempts: DeliveryAttempt[]): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `insert into webhook_deliveries (id, org_id, webhook_id, event_id, event_type, change_version, attempt, outcome,
                                     response_status, duration_ms, error, response_excerpt, next_retry_at)
     select a.id, $1, a."webhookId", a."eventId", a."eventType", a."changeVersion", a.attempt, a.outcome,
            a."responseStatus", a."durationMs", a.error, a."responseExcerpt", a."nextRetryAt"
       from json_to_recordset($2::json) as a(id uuid, "webhookId" uuid, "eventId" uuid, "eventType" text, "changeVersion" bigint,
            attempt int, outcome text, "responseStatus" int, "durationMs" int, error text, "responseExcerpt" text, "nextRetryAt" timestamptz)
      where exists (select 1 from webhooks w where w.org_id = $1 and w.id = a."webhookId")
     on conflict (id) do nothing`,
    [orgId, JSON.stringify(attempts)],
  );
}
