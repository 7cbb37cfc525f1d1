import { is, SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { CALLER_ORG } from "./caller.ts";
import { derivedColumns, projection, projectionWithDerived, publicValue } from "./projection.ts";
import type { ColumnDef, ColumnKind, Resource } from "./resource.ts";
import type { CheckedField, RuleName, ViolationsOf } from "./rules.ts";
import { sql } from "./sql-tag.ts";

// The parts the write statements are made of. Each write is one statement of data-modifying CTEs:
// the caller (caller.ts), the preconditions, the change in `changed`, the changeVersion bump in
// `bump` and the outbox row in `event` (outbox.ts), so a refused write changes nothing and a call is one round
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
export type Rule<Name extends RuleName = RuleName> = Check & { name: Name };

/** The checks' column of a rule's violation: `<name>:violation`. */
const violationKey = (name: string) => `${name}:violation`;

/** What each failed rule reported as its violation (null for a `holds` rule). */
export const violationsOf = <Name extends RuleName>(rules: Rule<Name>[], checks: Record<string, unknown> | null): ViolationsOf<Name> =>
  Object.fromEntries(
    rules.filter((r) => r.violation && checks?.[r.name] === false).map((r) => [r.name, checks?.[violationKey(r.name)] ?? null]),
  ) as ViolationsOf<Name>;

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
      select (${ifMatch}::int is null or l.version = ${ifMatch}::int) as "versionMatches",
             ${changesSomething} as "changesSomething" ${ruleChecks.columns}
        from locked l${ruleChecks.laterals}
    ),
    ${sql.identifier(name)} as (
      update ${resource.table} r
         set ${sql.join(assignments, sql` `)} version = r.version + 1, updated_at = now()
        from locked l, checks${references.length ? sql`, refs` : sql``}
       where r.id = l.id and checks."versionMatches" and checks."changesSomething"
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
  and not exists (select 1 from json_each_text(o.checks) c where c.value = 'false' and c.key <> 'changesSomething' and c.key not like '%:violation')
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
    select * from ${resource.table} r
     where r.org_id = ${CALLER_ORG} and ${which}
       for update
  )`;
}

/**
 * `externalId` holds when no other record of the resource in the caller's organisation has the
 * external id being set (`except`: the record being changed). The unique index is the last word;
 * this check lets a refusal name the field, and a batch's operation refuse before the index does.
 */
export function externalIdFree(resource: Resource, externalId: unknown, except?: SQL): Reference[] {
  return typeof externalId === "string" ? [notTaken(resource.table, "externalId", sql`x.external_id = ${externalId}`, except)] : [];
}

/**
 * `field` holds when no row `x` of `table` in the caller's organisation matches (`except`: the
 * id of the record being changed): a unique value checked in the statement, so a refusal names
 * the field (409) instead of failing on the unique index.
 */
export function notTaken(table: PgTable, field: CheckedField, matches: SQL, except?: SQL): Reference {
  return {
    field,
    exists: sql`not exists (select 1 from ${table} x where x.org_id = ${CALLER_ORG} and ${matches} ${except ? sql`and x.id <> ${except}` : sql``})`,
  };
}

/**
 * `changes` of an update event: each public field whose value moved, as { from, to }, between the
 * locked row and `changed`. Only the fields the write sets can move (no trigger writes a column;
 * version and updatedAt, which every change moves, are not reported), so only they are compared,
 * each as the public record answers it: not the whole record twice, built and compared field by
 * field on every update.
 */
export function fieldChanges(resource: Resource, changes: Change[]): SQL {
  const moved = changes.filter((c) => resource.publicColumns.some((p) => p.key === c.column.key));
  if (moved.length === 0) return sql`null::jsonb`;
  if (!moved.every((c) => /^[A-Za-z]\w*$/.test(c.column.key))) throw new Error("field names cannot be inlined");
  const values = moved.map(
    ({ column: { key, column, kind } }) =>
      sql`(${sql.raw(`'${key}'`)}, to_jsonb(${publicValue("l", column, kind)}), to_jsonb(${publicValue("changed", column, kind)}))`,
  );
  return sql`(select jsonb_object_agg(d.field, jsonb_build_object('from', d.old_value, 'to', d.new_value))
      from locked l cross join lateral (values ${sql.join(values, sql`, `)}) d(field, old_value, new_value)
     where d.old_value is distinct from d.new_value)`;
}

// A change builds its record's JSON once per row (the projection's derived fields are subqueries,
// each planned and run wherever the projection appears: planning was most of a PATCH's database
// time): `views` holds the locked row as it was (`after` false) and the row as written (`after`
// true), each when there is one. The answer's before and record and the event's data read them.
//
// The derived fields are computed once for both: each is computed from other rows by the record's
// id and organisation, which no change of the record moves, and every subquery of a statement
// reads the same snapshot, which the statement's own change is not part of. So the written row's
// derived fields are the locked row's (for a new record, they are computed from its id alone).

/**
 * `views`: the projection of the locked row and of `changed`, each built once, with the derived
 * fields of `record`: a FROM item `l` of the record's id and org_id.
 */
export function recordViews(resource: Resource, record: SQL): SQL {
  const derived = derivedColumns(resource, "l");
  return sql`views as (
      select rv.after, ${derived ? projectionWithDerived(resource, "rv", "d") : projection(resource, "rv")} as json
        from (select false as after, l.* from locked l union all select true as after, c.* from changed c) rv
        ${derived ? sql`cross join (select ${derived} from ${record}) d` : sql``}
    )`;
}

/** Over `views`: the record as it was, and as written. */
export const BEFORE_VIEW = sql`(select v.json from views v where not v.after)`;
export const AFTER_VIEW = sql`(select v.json from views v where v.after)`;
