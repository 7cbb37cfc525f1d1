import type { SQL } from "drizzle-orm";
import type { OpsEvent } from "../../../domain/events.ts";
import { uuidv7 } from "../../../domain/ids.ts";
import { events, organisations } from "../../schema/index.ts";
import { eventProjection, parseEvent } from "./events.ts";
import { projection } from "./projection.ts";
import type { Resource } from "./resource.ts";
import { sql } from "./sql-tag.ts";

// The outbox side of a write statement (write-ctes.ts has the rest): the changeVersion bump and
// the events a write commits, in the same statement as its change, fed by the CTE `changed`.

/**
 * Rows a write changes as a consequence of its own change, each with an event of its own: the
 * tasks a deleted task no longer blocks, the comments deleted with their task. `body` is the CTE's
 * statement (it may use `changed`, and must do nothing when `changed` is empty); it answers the
 * changed rows of `resource` (`returning t.*`) and, for an update, their `changes` as a jsonb
 * column `event_changes`. `count` answers how many rows it will change, over the locked row `l`
 * before the write, counting no further than `upTo` (so the write can be refused before it does
 * more than a request may).
 */
export interface Cascade {
  name: string;
  resource: Resource;
  action: "updated" | "deleted";
  body: SQL;
  count: (upTo: SQL) => SQL;
}

/** A UUIDv7 made by Postgres (for the events of cascades, whose number the statement alone knows). */
export const SQL_UUIDV7 = sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
  substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * The changeVersion bump and the outbox rows, fed by the CTE `changed` holding the written row and
 * by the cascades' CTEs. `action` is created, updated or deleted, or SQL choosing one (an upsert).
 * Each event has a changeVersion of its own, consecutive: the cascades' first (in their order,
 * then by record id), the write's own last, so a follower never sees a reference to a record
 * already gone. An event committed by a batch carries the batch's id, which the batch's
 * transaction sets first (services/batch.ts).
 */
export function bumpAndEvent(
  resource: Resource,
  action: "created" | "updated" | "deleted" | SQL,
  changes: SQL,
  cascades: Cascade[] = [],
  data: SQL = projection(resource, "changed"), // the written record's JSON, when the statement built it already
): SQL {
  if (!resource.emitsEvents)
    return sql`bump as (select null::bigint as change_version where false), event as (select * from ${events} where false)`;
  const type = typeof action === "string" ? sql`${`${resource.type}.${action}`}` : sql`${`${resource.type}.`} || ${action}`;
  if (cascades.length === 0) return ownBumpAndEvent(resource, type, changes, data);
  const cascadeCtes = cascades.map((c) => sql`${sql.identifier(c.name)} as (${c.body}),`);
  const parts = [
    ...cascades.map(
      (c, i) =>
        sql`select ${i}::int as part, c.id as record_id, c.org_id, ${`${c.resource.type}.${c.action}`}::text as type, ${c.resource.readScope}::text as scope,
                   ${projection(c.resource, "c")} as data, ${c.action === "updated" ? sql`c.event_changes` : sql`null::jsonb`} as changes, ${SQL_UUIDV7} as event_id
              from ${sql.identifier(c.name)} c`,
    ),
    sql`select ${cascades.length}::int as part, changed.id as record_id, changed.org_id, (${type})::text as type, ${resource.readScope}::text as scope,
               ${data} as data, ${changes} as changes, ${uuidv7()}::uuid as event_id from changed`,
  ];
  return sql`${sql.join(cascadeCtes, sql` `)}
    written as (
      select w.*, row_number() over (order by w.part, w.record_id) as seq, count(*) over () as total
        from (${sql.join(parts, sql` union all `)}) w
    ),
    bump as (
      update ${organisations} o set change_version = o.change_version + (select count(*) from written)
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into ${events} (id, org_id, change_version, type, scope, data, changes, actor, batch_id)
      select w.event_id, w.org_id, bump.change_version - w.total + w.seq, w.type, w.scope,
             w.data, w.changes, (select actor from key), ${BATCH_ID}
        from written w, bump
      returning *
    )`;
}

/**
 * bumpAndEvent for a write with no cascades, the most common: its one row (`changed` holds at most
 * one: a create, an update, an upsert or a delete of one record) takes the next changeVersion and
 * the one event, without the window that numbers several rows, which every write planned and ran.
 */
function ownBumpAndEvent(resource: Resource, type: SQL, changes: SQL, data: SQL): SQL {
  return sql`bump as (
      update ${organisations} o set change_version = o.change_version + 1
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into ${events} (id, org_id, change_version, type, scope, data, changes, actor, batch_id)
      select ${uuidv7()}::uuid, changed.org_id, bump.change_version, (${type})::text, ${resource.readScope}::text,
             ${data}, ${changes}, (select actor from key), ${BATCH_ID}
        from changed, bump
      returning *
    )`;
}

/** The transaction-local setting holding the id of the batch a transaction runs (batch.ts openBatch sets it). */
export const BATCH_ID_SETTING = sql.raw("'opsroom.batch_id'");

/** The id of the batch whose transaction runs the statement, or null. */
export const BATCH_ID = sql`nullif(current_setting(${BATCH_ID_SETTING}, true), '')::uuid`;

/**
 * The events a write committed, as the statement answers them: its own (`event`, the last) and
 * those of its cascades (`cascaded`, in changeVersion order).
 */
export const committedEvent = sql`(select ${eventProjection("e")} from event e order by e.change_version desc limit 1) as event,
  (select json_agg(${eventProjection("e")} order by e.change_version) from event e
    where e.change_version < (select max(change_version) from event)) as cascaded`;

/** `committedEvent`'s columns for a write with no cascades: its one event. */
export const ownEventColumns = sql`(select ${eventProjection("e")} from event e) as event, null::json as cascaded`;

/** What a write committed: its own event (null for a no-op) and its cascades' events, in changeVersion order. */
export interface Committed {
  event: OpsEvent | null;
  /** Absent or empty for a write with no cascade. */
  cascaded?: OpsEvent[];
}

/** The `event` and `cascaded` columns of `committedEvent`, parsed. */
export const committedOf = (row: { event: OpsEvent | null; cascaded?: OpsEvent[] | null }): Committed => ({
  event: row.event && parseEvent(row.event),
  cascaded: (row.cascaded ?? []).map(parseEvent),
});
