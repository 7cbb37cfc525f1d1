import { is, SQL, sql } from "drizzle-orm";
import { uuidv7 } from "../../domain/ids.ts";
import { CALLER_ORG } from "./caller.ts";
import type { OpsEvent } from "../../domain/events.ts";
import { eventProjection, parseEvent } from "./events.ts";
import { ownProjection, projection } from "./projection.ts";
import type { ColumnDef, ColumnKind, Resource } from "./resource.ts";
import type { CheckedField, RuleName, RuleViolations } from "./rules.ts";

// The parts the write statements are made of. Each write is one statement of data-modifying CTEs:
// the caller (caller.ts), the preconditions, the change in `changed`, the changeVersion bump in
// `bump` and the outbox row in `event`, so a refused write changes nothing and a call is one round
// trip. Fragments a resource hands in (references, rules, blockers) may use the caller's CTEs,
// CALLER_ORG, and the resource's `locked` row (`l`) where the statement has one.

const SQL_TYPE: Record<ColumnKind, string> = {
  uuid: "uuid",
  uuidArray: "uuid[]",
  text: "text",
  textArray: "text[]",
  date: "date",
  numeric: "numeric",
  decimal: "numeric",
  boolean: "boolean",
  integer: "integer",
  timestamp: "timestamptz",
  json: "jsonb",
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

/** A precondition a write depends on, named after the body field it is about (rules.ts CheckedField). */
export interface Reference {
  field: CheckedField;
  /** Boolean SQL. */
  exists: SQL;
}

/** A condition of the statement's `refs` row, under any name (an upsert prefixes its references' by branch). */
type Condition = { field: string; exists: SQL };

/**
 * A condition over the locked row, a column of the statement's `checks` row under any name (an
 * upsert's create-only fields are checked as `fixed:<field>`). Either `holds` (boolean SQL), or
 * `violation`: SQL answering what breaks it as JSON (the dependency cycle, the open blockers), or
 * null when nothing does; the statement reports it with the refusal, so the error can name it.
 */
export type Check = { name: string; holds: SQL; violation?: never } | { name: string; violation: SQL; holds?: never };

/**
 * A rule over the locked row and the change (the task workflow); the write happens only if it
 * holds. Its name is one of rules.ts RULES, by which the service settles its failure.
 */
export type Rule = Check & { name: RuleName };

/** The checks' column of a rule's violation: `<name>:violation`. */
const violationKey = (name: string) => `${name}:violation`;

/** What each failed rule reported as its violation (null for a `holds` rule). */
export const violationsOf = (rules: Rule[], checks: Record<string, unknown> | null): Partial<RuleViolations> =>
  Object.fromEntries(
    rules.filter((r) => r.violation && checks?.[r.name] === false).map((r) => [r.name, checks?.[violationKey(r.name)] ?? null]),
  );

/**
 * The checks as columns of a `checks` row over the locked row `l`: `laterals` to add after
 * `from locked l`, and the columns: each check's boolean, and each violation's JSON.
 */
export function ruleColumns(rules: Check[]): { laterals: SQL; columns: SQL } {
  const laterals = rules.flatMap((r, i) =>
    r.violation ? [sql` cross join lateral (select (${r.violation})::jsonb as v) ${sql.identifier(`rule_${i}`)}`] : [],
  );
  const columns = rules.map((r, i) =>
    r.violation
      ? sql`, (${sql.identifier(`rule_${i}`)}.v is null) as ${sql.identifier(r.name)}, ${sql.identifier(`rule_${i}`)}.v as ${sql.identifier(violationKey(r.name))}`
      : sql`, (${r.holds}) as ${sql.identifier(r.name)}`,
  );
  return { laterals: sql.join(laterals, sql``), columns: sql.join(columns, sql``) };
}

export function referenceCte(references: Condition[], from: SQL): SQL {
  if (references.length === 0) return sql`refs as (select true as none from ${from})`;
  const checks = references.map((r) => sql`(${r.exists}) as ${sql.identifier(r.field)}`);
  return sql`refs as (select ${sql.join(checks, sql`, `)} from ${from})`;
}

export function referencesHold(references: Condition[]): SQL {
  if (references.length === 0) return sql`true`;
  return sql.join(
    references.map((r) => sql`refs.${sql.identifier(r.field)}`),
    sql` and `,
  );
}

/**
 * The change of the caller's `locked` row (`l`), as updates and upserts make it: `checks` holds the
 * If-Match version, whether the change changes anything at all, and each rule; the CTE `name`
 * updates the row only if all of them and the references hold, bumping its version.
 */
export function changeOfLocked(
  resource: Resource,
  change: { changes: Change[]; ifMatch: number | null; rules: Check[]; references: Condition[] },
  name: "changed" | "updated",
): SQL {
  const { changes, ifMatch, rules, references } = change;
  const changesSomething = changes.length
    ? sql`(${sql.join(
        changes.map((c) => sql.raw(`l.${c.column.column}`)),
        sql`, `,
      )}, null) is distinct from (${sql.join(
        changes.map((c) => c.value),
        sql`, `,
      )}, null)`
    : sql`false`;
  const ruleChecks = ruleColumns(rules);
  const rulesHold = rules.map((r) => sql` and checks.${sql.identifier(r.name)}`);
  const assignments = changes.map((c) => sql`${sql.identifier(c.column.column)} = ${c.value},`);
  return sql`checks as (
      select (${ifMatch}::int is null or l.version = ${ifMatch}::int) as version_matches,
             ${changesSomething} as changes_something ${ruleChecks.columns}
        from locked l${ruleChecks.laterals}
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
  and not exists (select 1 from json_each_text(o.checks) c where c.value = 'false' and c.key <> 'changes_something' and c.key not like '%:violation')
  and not exists (select 1 from json_each_text(o.refs) f where f.value = 'false' and f.key like ${`${refsOf}%`})))`;

/** The fields a statement reports as false, by name. */
export const failed = <Name extends string>(names: Name[], row: Record<string, boolean | number> | null): Name[] =>
  names.filter((name) => row?.[name] === false);

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
const SQL_UUIDV7 = sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
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
): SQL {
  if (!resource.emitsEvents)
    return sql`bump as (select null::bigint as change_version where false), event as (select * from events where false)`;
  const type = typeof action === "string" ? sql`${`${resource.type}.${action}`}` : sql`${`${resource.type}.`} || ${action}`;
  const cascadeCtes = cascades.map((c) => sql`${sql.identifier(c.name)} as (${c.body}),`);
  const parts = [
    ...cascades.map(
      (c, i) =>
        sql`select ${i}::int as part, c.id as record_id, c.org_id, ${`${c.resource.type}.${c.action}`}::text as type, ${c.resource.readScope}::text as scope,
                   ${projection(c.resource, "c")} as data, ${c.action === "updated" ? sql`c.event_changes` : sql`null::jsonb`} as changes, ${SQL_UUIDV7} as event_id
              from ${sql.identifier(c.name)} c`,
    ),
    sql`select ${cascades.length}::int as part, changed.id as record_id, changed.org_id, (${type})::text as type, ${resource.readScope}::text as scope,
               ${projection(resource, "changed")} as data, ${changes} as changes, ${uuidv7()}::uuid as event_id from changed`,
  ];
  return sql`${sql.join(cascadeCtes, sql` `)}
    written as (
      select w.*, row_number() over (order by w.part, w.record_id) as seq, count(*) over () as total
        from (${sql.join(parts, sql` union all `)}) w
    ),
    bump as (
      update organisations o set change_version = o.change_version + (select count(*) from written)
        from changed where o.id = changed.org_id
      returning o.change_version
    ),
    event as (
      insert into events (id, org_id, change_version, type, scope, data, changes, actor, batch_id)
      select w.event_id, w.org_id, bump.change_version - w.total + w.seq, w.type, w.scope,
             w.data, w.changes, (select actor from key), ${BATCH_ID}
        from written w, bump
      returning *
    )`;
}

/** The transaction-local setting holding the id of the batch a transaction runs (batch.ts openBatch sets it). */
export const BATCH_ID_SETTING = sql.raw("'opsroom.batch_id'");

/** The id of the batch whose transaction runs the statement, or null. */
export const BATCH_ID = sql`nullif(current_setting(${BATCH_ID_SETTING}, true), '')::uuid`;

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
export function notTaken(table: string, field: CheckedField, matches: SQL, except?: SQL): Reference {
  return {
    field,
    exists: sql`not exists (select 1 from ${sql.identifier(table)} x where x.org_id = ${CALLER_ORG} and ${matches} ${except ? sql`and x.id <> ${except}` : sql``})`,
  };
}

/**
 * The events a write committed, as the statement answers them: its own (`event`, the last) and
 * those of its cascades (`cascaded`, in changeVersion order).
 */
export const committedEvent = sql`(select ${eventProjection("e")} from event e order by e.change_version desc limit 1) as event,
  (select json_agg(${eventProjection("e")} order by e.change_version) from event e
    where e.change_version < (select max(change_version) from event)) as cascaded`;

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

/** `changes` of an update event: each public field whose value moved, as { from, to }. */
export function changedFields(resource: Resource): SQL {
  return sql`(select jsonb_object_agg(n.key, jsonb_build_object('from', o.value, 'to', n.value))
      from jsonb_each((${ownProjection(resource, "changed")})::jsonb) n
      join jsonb_each((select (${ownProjection(resource, "l")})::jsonb from locked l)) o using (key)
     where n.value is distinct from o.value and n.key not in ('version', 'updatedAt'))`;
}
