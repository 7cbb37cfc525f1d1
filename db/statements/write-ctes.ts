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

/**
 * The change of the caller's `locked` row (`l`), as updates and upserts make it: `checks` holds the
 * If-Match version, whether the change changes anything at all, and each rule; the CTE `name`
 * updates the row only if all of them and the references hold, bumping its version.
 */
export function changeOfLocked(
  resource: Resource,
  change: { changes: Change[]; ifMatch: number | null; rules: Rule[]; references: Reference[] },
  name: "changed" | "updated",
): SQL {
  const { changes, ifMatch, rules, references } = change;
  const changesSomething = changes.length
    ? sql`(${sql.join(changes.map((c) => sql.raw(`l.${c.column.column}`)), sql`, `)}, null) is distinct from (${sql.join(changes.map((c) => c.value), sql`, `)}, null)`
    : sql`false`;
  const ruleColumns = rules.map((r) => sql`, (${r.holds}) as ${sql.identifier(r.name)}`);
  const rulesHold = rules.map((r) => sql` and checks.${sql.identifier(r.name)}`);
  const assignments = changes.map((c) => sql`${sql.identifier(c.column.column)} = ${c.value},`);
  return sql`checks as (
      select (${ifMatch}::int is null or l.version = ${ifMatch}::int) as version_matches,
             ${changesSomething} as changes_something ${sql.join(ruleColumns, sql``)}
        from locked l
    ),
    ${sql.identifier(name)} as (
      update ${sql.identifier(resource.name)} r
         set ${sql.join(assignments, sql` `)} version = r.version + 1, updated_at = now()
        from locked l, checks, refs
       where r.id = l.id and checks.version_matches and checks.changes_something
             and ${referencesHold(references)}${sql.join(rulesHold, sql``)}
      returning r.*
    )`;
}

/**
 * Over the outcome `o` of an update or upsert: the change did its work when it changed the record,
 * or when it had nothing to change and every check held (a no-op answers the record as it is).
 * `refs` starting with `refsOf` count (an upsert's change ignores its create's references).
 */
export const changeSucceeded = (refsOf = "") => sql`(o.record is not null or (o.allowed and o.before is not null
  and not exists (select 1 from json_each_text(o.checks) c where c.value = 'false' and c.key <> 'changes_something')
  and not exists (select 1 from json_each_text(o.refs) f where f.value = 'false' and f.key like ${`${refsOf}%`})))`;

/** The fields a statement reports as false, by name. */
export const failed = (names: string[], row: Record<string, boolean | number> | null) => names.filter((name) => row?.[name] === false);

/**
 * `locked`: the caller's record, by its id or its external id, row-locked, as it is now (not as
 * the statement's snapshot saw it).
 */
export function lockedCte(resource: Resource, key: string | { externalId: string }): SQL {
  const which = typeof key === "string" ? sql`r.id = ${key}::uuid` : sql`r.external_id = ${key.externalId}`;
  return sql`locked as (
    select * from ${sql.identifier(resource.name)} r
     where r.org_id = ${CALLER_ORG} and ${which}
       for update
  )`;
}

/**
 * The changeVersion bump and the outbox row, fed by the CTE `changed` holding the written row.
 * `action` is created, updated or deleted, or SQL choosing one (an upsert). An event committed by a
 * batch carries the batch's id, which the batch's transaction sets first (services/batch.ts).
 */
export function bumpAndEvent(resource: Resource, action: "created" | "updated" | "deleted" | SQL, changes: SQL): SQL {
  if (!resource.emitsEvents) return sql`bump as (select null::bigint as change_version where false), event as (select * from events where false)`;
  const type = typeof action === "string" ? sql`${`${resource.type}.${action}`}` : sql`${`${resource.type}.`} || ${action}`;
  return sql`bump as (
      update organisations o set change_version = o.change_version + 1
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into events (id, org_id, change_version, type, scope, data, changes, actor, batch_id)
      select ${uuidv7()}::uuid, changed.org_id, bump.change_version, ${type}, ${resource.readScope},
             ${projection(resource, "changed")}, ${changes}, (select actor from key), ${BATCH_ID}
        from changed, bump
      returning *
    )`;
}

/** The id of the batch whose transaction runs the statement (set_config, transaction-local), or null. */
export const BATCH_ID = sql`nullif(current_setting('opsroom.batch_id', true), '')::uuid`;

/**
 * `externalId` holds when no other record of the resource in the caller's organisation has the
 * external id being set (`except`: the record being changed). The unique index is the last word;
 * this check lets a refusal name the field, and a batch's operation refuse before the index does.
 */
export function externalIdFree(resource: Resource, externalId: unknown, except?: SQL): Reference[] {
  return typeof externalId === "string" ? [notTaken(resource.name, "externalId", sql`x.external_id = ${externalId}`, except)] : [];
}

/**
 * `field` holds when no row `x` of `table` in the caller's organisation matches (`except`: the
 * id of the record being changed): a unique value checked in the statement, so a refusal names
 * the field (409) instead of failing on the unique index.
 */
export function notTaken(table: string, field: string, matches: SQL, except?: SQL): Reference {
  return {
    field,
    exists: sql`not exists (select 1 from ${sql.identifier(table)} x where x.org_id = ${CALLER_ORG} and ${matches} ${except ? sql`and x.id <> ${except}` : sql``})`,
  };
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
