import { sql, type SQL } from "drizzle-orm";
import type { OpsEvent } from "../../domain/events.ts";
import type { Database } from "../client.ts";
import type { Actor } from "../../domain/actor.ts";
import { EVENT_RETENTION_DAYS } from "../../domain/limits.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { run, runOne } from "./sql.ts";

const EVENT_RETENTION = sql.raw(`interval '${EVENT_RETENTION_DAYS} days'`);

/** The public event, built by Postgres: the write statements, the catch-up list and the sweep share it. */
export function eventProjection(alias: string): SQL {
  const e = (column: string) => sql.raw(`${alias}.${column}`);
  return sql`json_build_object(
    'id', ${e("id")}, 'type', ${e("type")}, 'orgId', ${e("org_id")}, 'changeVersion', ${e("change_version")},
    'occurredAt', to_char(${e("occurred_at")} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', ${e("data")}, 'changes', ${e("changes")},
    'actor', coalesce(${e("actor")}, '{"type":"system","id":null,"name":"opsroom"}'::jsonb))`;
}

export function parseEvent(raw: OpsEvent): OpsEvent {
  // change_version is bigint in SQL; JSON carries it as a number.
  return { ...raw, changeVersion: Number(raw.changeVersion) };
}

/** GET /v1/events: the events after `after` that the key may read, oldest first. */
export async function listEvents(
  db: Database,
  actor: Actor,
  options: { after: number; limit: number },
): Promise<{ caller: CallerOutcome; events: OpsEvent[]; hasMore: boolean; changeVersion: number }> {
  const row = await runOne<CallerRow & { events: OpsEvent[]; change_version: string }>(
    db,
    sql`with ${callerCtes(actor, null)}
        select ${callerColumns},
               (select change_version from organisations where id = ${CALLER_ORG}) as change_version,
               (select coalesce(json_agg(x.event order by x.change_version), '[]'::json) from (
                  select ${eventProjection("e")} as event, e.change_version
                    from events e
                   where e.org_id = ${CALLER_ORG}
                     and e.scope = any((select scopes from key)::text[])
                     and e.change_version > ${options.after}
                     and e.occurred_at > now() - ${EVENT_RETENTION}
                   order by e.change_version
                   limit ${options.limit + 1}
               ) x) as events`,
  );
  return {
    caller: callerOf(row),
    events: row.events.slice(0, options.limit).map(parseEvent),
    hasMore: row.events.length > options.limit,
    changeVersion: Number(row.change_version),
  };
}

/** Every event of an organisation after `after` (the room filling a gap), oldest first. */
export async function eventsAfter(db: Database, orgId: string, after: number, limit: number): Promise<OpsEvent[]> {
  const rows = await run<{ event: OpsEvent }>(
    db,
    sql`select ${eventProjection("e")} as event from events e
         where e.org_id = ${orgId}::uuid and e.change_version > ${after}
         order by e.change_version limit ${limit}`,
  );
  return rows.map((r) => parseEvent(r.event));
}

/**
 * Where a room with no memory starts: just before the first event it was never sent, or the
 * organisation's current changeVersion when it has been sent everything.
 */
export async function roomStartingPoint(db: Database, orgId: string): Promise<number> {
  const row = await runOne<{ watermark: string }>(
    db,
    sql`select coalesce(
              (select min(change_version) - 1 from events where org_id = ${orgId}::uuid and published_at is null),
              (select change_version from organisations where id = ${orgId}::uuid),
              0) as watermark`,
  );
  return Number(row.watermark);
}

/** Records the room's acknowledgement, so the sweep stops re-publishing these events. */
export async function markPublished(db: Database, orgId: string, changeVersions: number[]): Promise<void> {
  if (changeVersions.length === 0) return;
  await db.query(
    "update events set published_at = now() where org_id = $1 and change_version = any($2::bigint[]) and published_at is null",
    [orgId, changeVersions],
  );
}

/** Unacknowledged events older than `graceSeconds` (of one organisation, or all), oldest first. */
export async function unpublishedEvents(db: Database, graceSeconds: number, limit: number, orgId?: string): Promise<OpsEvent[]> {
  const rows = await run<{ event: OpsEvent }>(
    db,
    sql`select ${eventProjection("e")} as event from events e
         where e.published_at is null and e.occurred_at <= now() - make_interval(secs => ${graceSeconds})
               ${orgId ? sql`and e.org_id = ${orgId}::uuid` : sql``}
         order by e.occurred_at, e.org_id, e.change_version limit ${limit}`,
  );
  return rows.map((r) => parseEvent(r.event));
}

/** Drops acknowledged events past the retention window. */
export async function pruneEvents(db: Database): Promise<number> {
  const rows = await run(db, sql`delete from events where published_at is not null and occurred_at < now() - ${EVENT_RETENTION} returning 1`);
  return rows.length;
}
