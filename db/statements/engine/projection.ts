import { getTableName, type SQL } from "drizzle-orm";
import type { Scope } from "../../../domain/scopes.ts";
import { dialect } from "./compile.ts";
import type { ColumnDef, ColumnKind, Resource } from "./resource.ts";
import { sql } from "./sql-tag.ts";

// The public record, built by Postgres as JSON: responses and event payloads share it.

/** A column's value as the public record answers it (dates, timestamps and money as strings). */
export function publicValue(alias: string, column: string, kind: ColumnKind): SQL {
  const ref = sql.raw(`${alias}.${column}`);
  switch (kind) {
    case "date":
      return sql`to_char(${ref}, 'YYYY-MM-DD')`;
    case "numeric":
      return sql`${ref}::float8`;
    case "decimal":
      return sql`round(${ref}, 2)::text`;
    case "timestamp":
      return sql`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
    default:
      return ref;
  }
}

/** `'key'::text, value` pairs for json_build_object, field names inline. */
function pair(key: string, value: SQL): SQL {
  if (!/^[A-Za-z]\w*$/.test(key)) throw new Error(`field name ${key} cannot be inlined`);
  return sql`${sql.raw(`'${key}'`)}::text, ${value}`;
}

/** json_build_object of the pairs, compiled to one piece of parameterless SQL text. */
function compiled(pairs: SQL[]): SQL {
  const query = dialect.sqlToQuery(sql`json_build_object(${sql.join(pairs, sql`, `)})`);
  if (query.params.length > 0) throw new Error("a projection must not take parameters");
  return sql.raw(query.sql);
}

/**
 * The pairs of the record's fields, in response order; `only` narrows them (sparse fields).
 * `derived`: with the derived fields, computed for the row (true), or read from the columns of
 * the row `{ from }` (derivedColumns), or without them (false).
 */
function fieldPairs(
  resource: Resource,
  alias: string,
  options: { derived: boolean | { from: string }; only?: ReadonlySet<string> | undefined },
): SQL[] {
  const wanted = (key: string) => !options.only || options.only.has(key);
  const columns = (list: ColumnDef[]) => list.filter((c) => wanted(c.key)).map((c) => pair(c.key, publicValue(alias, c.column, c.kind)));
  const { derived: from } = options;
  const derived = from
    ? Object.entries(resource.derived)
        .filter(([key]) => wanted(key))
        .map(([key, field]) => pair(key, from === true ? field.sql(alias) : sql.raw(`${from.from}."${key}"`)))
    : [];
  return [...columns(resource.publicColumns.slice(0, -3)), ...derived, ...columns(resource.publicColumns.slice(-3))];
}

const projections = new WeakMap<Resource, Map<string, SQL>>();

function cached(resource: Resource, key: string, build: () => SQL): SQL {
  let byKey = projections.get(resource);
  if (!byKey) projections.set(resource, (byKey = new Map()));
  let built = byKey.get(key);
  if (!built) byKey.set(key, (built = build()));
  return built;
}

/**
 * The public record of the row named `alias`, derived fields included. It depends only on the
 * resource and the alias, so it is compiled once, to one piece of SQL text with the field names
 * inline (a write statement holds up to six of them: rebuilding and recompiling them on every call
 * was most of its compile time).
 */
export function projection(resource: Resource, alias: string): SQL {
  return cached(resource, `full:${alias}`, () => compiled(fieldPairs(resource, alias, { derived: true })));
}

/**
 * The record of the row `alias` with its derived fields read from the columns of the row
 * `derivedFrom` (derivedColumns): for rows whose derived fields are known to be another's.
 */
export function projectionWithDerived(resource: Resource, alias: string, derivedFrom: string): SQL {
  return cached(resource, `full:${alias}:${derivedFrom}`, () => compiled(fieldPairs(resource, alias, { derived: { from: derivedFrom } })));
}

/** The derived fields of the row `alias` as columns named after them, or null when the resource has none. */
export function derivedColumns(resource: Resource, alias: string): SQL | null {
  const fields = Object.entries(resource.derived);
  if (fields.length === 0) return null;
  if (!fields.every(([key]) => /^[A-Za-z]\w*$/.test(key))) throw new Error("derived field names cannot be inlined");
  return sql.join(
    fields.map(([key, field]) => sql`${field.sql(alias)} as ${sql.raw(`"${key}"`)}`),
    sql`, `,
  );
}

/**
 * The record's own fields (its columns), without the derived ones: what an update's `changes`
 * compare, since a derived field moves with other records, not with this one.
 */
export function ownProjection(resource: Resource, alias: string): SQL {
  return cached(resource, `own:${alias}`, () => compiled(fieldPairs(resource, alias, { derived: false })));
}

/** A related record a read may embed (`expand=project` on a task): the row of `resource` that `column` of the record names. */
export interface Expansion {
  name: string;
  resource: Resource;
  /** The SQL column of the record naming the related one (project_id). */
  column: string;
  /** The read scope a caller needs to see it. */
  scope: Scope;
}

/** How a read answers its records: every field or only some (`fields`), and the related records embedded (`expand`). */
export interface RecordView {
  fields: readonly string[] | null;
  expand: readonly Expansion[];
}

export const FULL_VIEW: RecordView = { fields: null, expand: [] };

/**
 * The record of the row `alias` as a read's view asks: its fields (id always, the others only if
 * named) and each expansion, which is the related record's own fields (not its derived ones: a
 * project's progress counts its tasks, which a list of 50 tasks must not do 50 times) or null. An expansion is answered only to
 * a caller holding its scope (the service refuses the call otherwise, so this is the second lock).
 */
export function viewProjection(resource: Resource, alias: string, view: RecordView): SQL {
  if (!view.fields && view.expand.length === 0) return projection(resource, alias);
  const only = view.fields ? new Set(["id", ...view.fields]) : undefined;
  const expansions = view.expand.map((e) => {
    const x = `x_${e.name}`;
    if (!/^[a-z]+(\.[a-z]+)?$/.test(e.scope) || !/^[a-z_]+$/.test(e.column)) throw new Error(`expansion ${e.name} cannot be inlined`);
    return pair(
      e.name,
      sql.raw(
        `case when exists (select 1 from key where '${e.scope}' = any(key.scopes)) then (select ${dialect.sqlToQuery(ownProjection(e.resource, x)).sql} from ${getTableName(e.resource.table)} ${x} where ${x}.org_id = ${alias}.org_id and ${x}.id = ${alias}.${e.column}) end`,
      ),
    );
  });
  return compiled([...fieldPairs(resource, alias, { derived: true, only }), ...expansions]);
}

/**
 * A stored response back in the order `projection` answered it (extra fields, such as a webhook's
 * secret, after): jsonb keeps keys in its own order, and a replay must be the first response byte
 * for byte.
 */
export function inResponseOrder<Json extends Record<string, unknown>>(resource: Resource, record: Json): Json {
  return ordered(record, resource.fieldNames, (key, value) => {
    const keys = resource.derived[key]?.keys;
    return keys && value && typeof value === "object" ? ordered(value as Record<string, unknown>, keys, (_, v) => v) : value;
  }) as Json;
}

function ordered(
  object: Record<string, unknown>,
  keys: readonly string[],
  value: (key: string, value: unknown) => unknown,
): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const key of keys) if (key in object) result[key] = value(key, object[key]);
  for (const [key, v] of Object.entries(object)) if (!(key in result)) result[key] = v;
  return result;
}
