import { is, SQL, sql } from "drizzle-orm";
import { uuidv7 } from "../../domain/ids.ts";
import { CALLER_ORG } from "./caller.ts";
import { eventProjection } from "./events.ts";
import { projection } from "./projection.ts";
import type { ColumnDef, ColumnKind, Resource } from "./resource.ts";

// The parts the write statements are made of. Each write is one statement of data-modifying CTEs:
// the caller (caller.ts), the preconditions, the change in `changed`, the changeVersion bump in
// `bump` and the outbox row in `event`, so a refused write changes nothing and a call is one round
// trip. Fragments a resource hands in (references, rules, blockers) may use the caller's CTEs,
// CALLER_ORG, and the resource's `locked` row (`l`) where the statement has one.

const SQL_TYPE: Record<ColumnKind, string> = {
  uuid: "uuid",
  text: "text",
  textArray: "text[]",
  date: "date",
  numeric: "numeric",
  decimal: "numeric",
  boolean: "boolean",
  integer: "integer",
  timestamp: "timestamptz",
};

export interface Change {
  column: ColumnDef;
  /** A typed parameter, or an SQL fragment computed in the statement. */
  value: SQL;
}

/** The fields of `values` that are set, each with its column and typed value. */
export function changesOf(resource: Resource, values: Record<string, unknown>): Change[] {
  return Object.entries(values)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => {
      const column = resource.writable[key];
      if (!column) throw new Error(`${resource.name} has no field ${key}`);
      // Arrays go as one parameter; drizzle would otherwise spread them into a list.
      const param = Array.isArray(value) ? sql.param(value) : (value ?? null);
      return { column, value: is(value, SQL) ? value : sql`${param}::${sql.raw(SQL_TYPE[column.kind])}` };
    });
}

/** A precondition a write depends on, named after the body field it is about. */
export interface Reference {
  field: string;
  /** Boolean SQL. */
  exists: SQL;
}

/** A rule over the locked row and the change (the task workflow); the write happens only if it holds. */
export interface Rule {
  name: string;
  holds: SQL;
}

export function referenceCte(references: Reference[], from: SQL): SQL {
  if (references.length === 0) return sql`refs as (select true as none from ${from})`;
  const checks = references.map((r) => sql`(${r.exists}) as ${sql.identifier(r.field)}`);
  return sql`refs as (select ${sql.join(checks, sql`, `)} from ${from})`;
}

export function referencesHold(references: Reference[]): SQL {
  if (references.length === 0) return sql`true`;
  return sql.join(references.map((r) => sql`refs.${sql.identifier(r.field)}`), sql` and `);
}

/** The fields a statement reports as false, by name. */
export const failed = (names: string[], row: Record<string, boolean | number> | null) => names.filter((name) => row?.[name] === false);

/** `locked`: the caller's record, row-locked, as it is now (not as the statement's snapshot saw it). */
export function lockedCte(resource: Resource, id: string): SQL {
  return sql`locked as (
    select * from ${sql.identifier(resource.name)} r
     where r.org_id = ${CALLER_ORG} and r.id = ${id}::uuid
       for update
  )`;
}

/** The changeVersion bump and the outbox row, fed by the CTE `changed` holding the written row. */
export function bumpAndEvent(resource: Resource, action: "created" | "updated" | "deleted", changes: SQL): SQL {
  if (!resource.emitsEvents) return sql`bump as (select null::bigint as change_version where false), event as (select * from events where false)`;
  return sql`bump as (
      update organisations o set change_version = o.change_version + 1
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into events (id, org_id, change_version, type, scope, data, changes, actor)
      select ${uuidv7()}::uuid, changed.org_id, bump.change_version, ${`${resource.type}.${action}`}, ${resource.readScope},
             ${projection(resource, "changed")}, ${changes}, (select actor from key)
        from changed, bump
      returning *
    )`;
}

/** The event a write committed, as the statement answers it. */
export const committedEvent = sql`(select ${eventProjection("event")} from event) as event`;

/** `changes` of an update event: each public field whose value moved, as { from, to }. */
export function changedFields(resource: Resource): SQL {
  return sql`(select jsonb_object_agg(n.key, jsonb_build_object('from', o.value, 'to', n.value))
      from jsonb_each((${projection(resource, "changed")})::jsonb) n
      join jsonb_each((select (${projection(resource, "l")})::jsonb from locked l)) o using (key)
     where n.value is distinct from o.value and n.key not in ('version', 'updatedAt'))`;
}
