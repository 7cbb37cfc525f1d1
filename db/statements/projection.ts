import { sql, type SQL } from "drizzle-orm";
import { dialect } from "./sql.ts";
import type { ColumnDef, ColumnKind, Resource } from "./resource.ts";

// The public record, built by Postgres as JSON: responses and event payloads share it.

function publicValue(alias: string, column: string, kind: ColumnKind): SQL {
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

const projections = new WeakMap<Resource, Map<string, SQL>>();

/**
 * The public record of the row named `alias`. It depends only on the resource and the alias, so it
 * is compiled once, to one piece of SQL text with the field names inline (a write statement holds
 * up to six of them: rebuilding and recompiling them on every call was most of its compile time).
 */
export function projection(resource: Resource, alias: string): SQL {
  let byAlias = projections.get(resource);
  if (!byAlias) projections.set(resource, (byAlias = new Map()));
  let built = byAlias.get(alias);
  if (!built) {
    const pairs = resource.publicColumns.map((c: ColumnDef) => {
      if (!/^[A-Za-z]\w*$/.test(c.key)) throw new Error(`field name ${c.key} cannot be inlined`);
      return sql`${sql.raw(`'${c.key}'`)}::text, ${publicValue(alias, c.column, c.kind)}`;
    });
    const compiled = dialect.sqlToQuery(sql`json_build_object(${sql.join(pairs, sql`, `)})`);
    if (compiled.params.length > 0) throw new Error("a projection must not take parameters");
    built = sql.raw(compiled.sql);
    byAlias.set(alias, built);
  }
  return built;
}

/**
 * A stored response back in the order `projection` answered it (extra fields, such as a webhook's
 * secret, after): jsonb keeps keys in its own order, and a replay must be the first response byte
 * for byte.
 */
export function inResponseOrder<Json extends Record<string, unknown>>(resource: Resource, record: Json): Json {
  const ordered: Record<string, unknown> = {};
  for (const { key } of resource.publicColumns) if (key in record) ordered[key] = record[key];
  for (const [key, value] of Object.entries(record)) if (!(key in ordered)) ordered[key] = value;
  return ordered as Json;
}
