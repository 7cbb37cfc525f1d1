import type { SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Actor } from "../../../domain/actor.ts";
import type { EventFilter } from "../../../domain/event-filter.ts";
import { SYSTEM_ACTOR, type OpsEvent } from "../../../domain/events.ts";
import type { Scope } from "../../../domain/scopes.ts";
import type { Database } from "../../client.ts";
import { events, organisations } from "../../schema/index.ts";
import { fitsAnswer, runningBytes } from "./answer-size.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { sql } from "./sql-tag.ts";
import { carryingAcknowledgements, run, runOne } from "./sql.ts";

/** The kernel's system actor as a jsonb literal (it holds no quote): what events and comments carry when no key or person acted. */
export const systemActor = sql.raw(`'${JSON.stringify(SYSTEM_ACTOR)}'::jsonb`);

/** The public event, built by Postgres: the write statements, the catch-up list and the sweep share it. */
export function eventProjection(alias: string): SQL {
  const e = (column: string) => sql.raw(`${alias}.${column}`);
  return sql`json_build_object(
    'id', ${e("id")}, 'type', ${e("type")}, 'orgId', ${e("org_id")}, 'changeVersion', ${e("change_version")},
    'occurredAt', to_char(${e("occurred_at")} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'data', ${e("data")}, 'changes', ${e("changes")},
    'actor', coalesce(${e("actor")}, ${systemActor}),
    'batchId', ${e("batch_id")})`;
}

export function parseEvent(raw: OpsEvent): OpsEvent {
  // change_version is bigint in SQL; JSON carries it as a number.
  return { ...raw, changeVersion: Number(raw.changeVersion) };
}

/** A page of events as one JSON column: at most `limit` of them and ANSWER_BYTES (answer-size.ts), and whether more follow. */
export interface EventPageColumn {
  events: OpsEvent[];
  hasMore: boolean;
}

/**
 * The events `e` of `from` that `where` selects, oldest first, as one column `page`
 * ({ events, hasMore }): at most `limit` of them, cut short where their JSON would pass
 * ANSWER_BYTES (the first is always answered).
 */
export function eventPageColumn(from: SQL, where: SQL, limit: number, order: SQL = sql`e.change_version`): SQL {
  const fits = sql`x.n <= ${limit} and ${fitsAnswer("x")}`;
  return sql`(select json_build_object(
            'events', coalesce(json_agg(x.event order by x.n) filter (where ${fits}), '[]'::json),
            'hasMore', count(*) > count(*) filter (where ${fits}))
          from (select y.*, ${runningBytes(sql`y.event`, sql`y.n`)} as bytes
                  from (select ${eventProjection("e")} as event, row_number() over (order by ${order}) as n
                          from (select e.* from ${from} where ${where} order by ${order} limit ${limit + 1}) e) y) x) as page`;
}

/** The page's events as the API answers them. */
const eventsOf = (page: EventPageColumn) => ({ events: page.events.map(parseEvent), hasMore: page.hasMore });

/**
 * Retention is decided by time once, then by number: the first changeVersion whose event is
 * younger than the retention is where the kept events start, and everything from it on is kept.
 * (An event's time is when its statement began, so a write that waited on a lock can be older
 * than the one before it: deciding row by row by time could leave a hole that no 410 reports.)
 */
const youngerThan = (alias: string, retentionSeconds: number) =>
  sql`${sql.raw(alias)}.occurred_at > now() - make_interval(secs => ${retentionSeconds})`;
export const firstKeptIn = (org: SQL, retentionSeconds: number) =>
  sql`coalesce((select min(k.change_version) from ${events} k where k.org_id = ${org} and ${youngerThan("k", retentionSeconds)}), 9223372036854775807)`;

/** The event `alias` of the caller's organisation is still kept. */
export const kept = (alias: string, retentionSeconds: number) =>
  sql`${sql.raw(alias)}.change_version >= ${firstKeptIn(CALLER_ORG, retentionSeconds)}`;

/** The caller's organisation's first changeVersion still kept, as a column `firstKept` (the largest bigint when none is). */
export const firstKeptColumn = (retentionSeconds: number) => sql`${firstKeptIn(CALLER_ORG, retentionSeconds)} as "firstKept"`;

/** The first changeVersion still kept; the current one + 1 when none is. */
export const firstKeptOf = (row: { firstKept: string | null }, caller: CallerOutcome) =>
  Math.min(Number(row.firstKept ?? Infinity), caller.changeVersion + 1);

/**
 * The filter (domain/event-filter.ts) as SQL over the events `e`, for the caller of the statement.
 * The project and record conditions are the expressions the events indexes are built on.
 */
function filterSql(filter: EventFilter): SQL[] {
  const conditions: SQL[] = [];
  if (filter.types.length > 0 && !filter.types.includes("*")) {
    const exact = filter.types.filter((t) => !t.endsWith(".*"));
    const prefixes = filter.types.filter((t) => t.endsWith(".*")).map((t) => `${t.slice(0, -1)}%`);
    conditions.push(sql`(e.type = any(${sql.param(exact)}::text[]) or e.type like any(${sql.param(prefixes)}::text[]))`);
  }
  // Ids are compared as the text events hold (lower case), so the indexes serve: an id given in
  // capitals is the same id.
  if (filter.projectId !== null)
    conditions.push(
      sql`(case when e.type like 'project.%' then e.data->>'id' else e.data->>'projectId' end) = ${filter.projectId.toLowerCase()}`,
    );
  if (filter.recordId !== null) conditions.push(sql`e.data->>'id' = ${filter.recordId.toLowerCase()}`);
  // The caller's own writes: the same key, or the same person (key.actor is the actor events carry).
  if (filter.excludeOwn) {
    conditions.push(
      sql`not coalesce(e.actor->>'type' = (select actor->>'type' from key) and e.actor->>'id' = (select actor->>'id' from key), false)`,
    );
  }
  return conditions;
}

export interface FeedPage {
  caller: CallerOutcome;
  events: OpsEvent[];
  hasMore: boolean;
  /** The first changeVersion still kept (the current one + 1 when none is): `after` below it minus one cannot be followed. */
  firstKept: number;
}

/**
 * GET /v1/events: the events after `after` that the caller may read and the filter wants, oldest
 * first, and where the kept events start.
 */
export async function listEvents(
  db: Database,
  actor: Actor,
  options: { after: number; limit: number; filter: EventFilter; retentionSeconds: number },
): Promise<FeedPage> {
  const conditions = [
    sql`e.org_id = ${CALLER_ORG}`,
    sql`e.scope = any((select scopes from key)::text[])`,
    sql`e.change_version > ${options.after}`,
    kept("e", options.retentionSeconds),
    ...filterSql(options.filter),
  ];
  const row = await runOne<CallerRow & { page: EventPageColumn; firstKept: string | null }>(
    db,
    sql`with ${callerCtes(actor, null)}
        select ${callerColumns},
               ${firstKeptColumn(options.retentionSeconds)},
               ${eventPageColumn(sql`${events} e`, sql.join(conditions, sql` and `), options.limit)}`,
  );
  const caller = callerOf(row);
  return { caller, ...eventsOf(row.page), firstKept: firstKeptOf(row, caller) };
}

/**
 * One record's events, oldest first, after a changeVersion: `GET /v1/<resource>/{id}/history`.
 * `known` says whether the organisation has the record or any kept event of it (a deleted
 * record's history stays readable while its events are kept).
 */
export async function recordHistory(
  db: Database,
  actor: Actor,
  options: { type: string; scope: Scope; table: PgTable; id: string; after: number; limit: number; retentionSeconds: number },
): Promise<{ caller: CallerOutcome; events: OpsEvent[]; hasMore: boolean; known: boolean }> {
  const ofRecord = sql`e.org_id = ${CALLER_ORG} and e.data->>'id' = ${options.id.toLowerCase()} and e.type like ${`${options.type}.%`} and ${kept("e", options.retentionSeconds)}`;
  const row = await runOne<CallerRow & { page: EventPageColumn; known: boolean }>(
    db,
    sql`with ${callerCtes(actor, options.scope)}
        select ${callerColumns},
               (exists (select 1 from ${options.table} r where r.org_id = ${CALLER_ORG} and r.id = ${options.id}::uuid)
                 or exists (select 1 from ${events} e where ${ofRecord})) as known,
               ${eventPageColumn(sql`${events} e`, sql`${ofRecord} and e.change_version > ${options.after}`, options.limit)}`,
  );
  return { caller: callerOf(row), ...eventsOf(row.page), known: row.known };
}

/**
 * The events of an organisation after `after` (the room filling a gap), oldest first: at most
 * `limit` and ANSWER_BYTES of them; the room asks again from the last one while a gap is left.
 */
export async function eventsAfter(db: Database, orgId: string, after: number, limit: number): Promise<OpsEvent[]> {
  const row = await runOne<{ page: EventPageColumn }>(
    db,
    sql`select ${eventPageColumn(sql`${events} e`, sql`e.org_id = ${orgId}::uuid and e.change_version > ${after}`, limit)}`,
  );
  return eventsOf(row.page).events;
}

/**
 * Where a room with no memory starts: just before the first event whose acknowledgement is not
 * recorded (never sent, or sent and not yet recorded: then a client may see it twice and drops it
 * by changeVersion), or the organisation's current changeVersion when every one is recorded.
 */
export async function roomStartingPoint(db: Database, orgId: string): Promise<number> {
  const row = await runOne<{ watermark: string }>(
    db,
    sql`select coalesce(
              (select min(change_version) - 1 from ${events} where org_id = ${orgId}::uuid and published_at is null),
              (select change_version from ${organisations} where id = ${orgId}::uuid),
              0) as watermark`,
  );
  return Number(row.watermark);
}

/**
 * Records the room's acknowledgement, so the sweep stops re-publishing these events. A Worker's
 * handle leaves it to its next write statement (db/statements/engine/acknowledgements.ts) unless `now`.
 */
export async function markPublished(
  db: Database,
  orgId: string,
  acknowledged: readonly unknown[],
  options: { now?: boolean } = {},
): Promise<void> {
  // The room's answer, as it came: only whole changeVersions are recorded.
  const changeVersions = acknowledged.filter((v): v is number => Number.isSafeInteger(v));
  if (changeVersions.length === 0) return;
  if (db.acknowledgements && !options.now) return db.acknowledgements.add(orgId, changeVersions);
  await run(
    db,
    sql`update ${events} set published_at = now()
         where org_id = ${orgId} and change_version = any(${sql.param(changeVersions)}::bigint[]) and published_at is null`,
  );
}

/** Records, in one statement, the acknowledgements the handle holds for a later write (the sweep, before it looks for what is unrecorded). */
export async function recordPendingAcknowledgements(db: Database): Promise<void> {
  await carryingAcknowledgements(db, async (acknowledged) => {
    if (acknowledged) await run(db, sql`with ${acknowledged} select 1`);
  });
}

/**
 * Unacknowledged events older than `graceSeconds` (of one organisation, or all), oldest first:
 * at most `limit` and ANSWER_BYTES of them, and whether more are waiting.
 */
export async function unpublishedEvents(db: Database, graceSeconds: number, limit: number, orgId?: string): Promise<EventPageColumn> {
  const waiting = sql`e.published_at is null and e.occurred_at <= now() - make_interval(secs => ${graceSeconds}) ${orgId ? sql`and e.org_id = ${orgId}::uuid` : sql``}`;
  const row = await runOne<{ page: EventPageColumn }>(
    db,
    sql`select ${eventPageColumn(sql`${events} e`, waiting, limit, sql`e.occurred_at, e.org_id, e.change_version`)}`,
  );
  return eventsOf(row.page);
}

/**
 * Drops the events past retention, published or not: nothing reads them any more (a room that
 * was down that long has its own gap to fill from what is kept).
 */
export async function pruneEvents(db: Database, retentionSeconds: number): Promise<number> {
  const rows = await run(
    db,
    sql`delete from ${events} e
         where not ${youngerThan("e", retentionSeconds)} and e.change_version < ${firstKeptIn(sql`e.org_id`, retentionSeconds)}
        returning 1`,
  );
  return rows.length;
}
