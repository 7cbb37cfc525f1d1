import { sql, type SQL } from "drizzle-orm";
import { bigint, check, integer, text, timestamp, uniqueIndex, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";

// Shared columns. Ids are UUIDv7 minted by the caller (so they sort by creation); the database
// default only covers rows written by hand.
export const id = () => uuid().primaryKey().defaultRandom();

export const orgId = () => uuid().notNull();

export const timestamps = {
  createdAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true, precision: 3 }).notNull().defaultNow(),
};

// Per-record optimistic concurrency counter: +1 on every change, sent as the ETag.
export const version = () => integer().notNull().default(1);

export const counter = () => bigint({ mode: "number" }).notNull().default(0);

/**
 * The id a record has in another system (a CRM's, a spreadsheet row's): set by integrators, unique
 * per organisation and resource, so PUT /v1/<resource>/by-external-id/{externalId} finds the one
 * record it names. NULLs do not collide, so records without one are unconstrained.
 */
export const externalId = () => text();

/** The unique (org_id, external_id) index and the length rule of a table's externalId. */
export function externalIdConstraints(table: string, t: { orgId: AnyPgColumn; externalId: AnyPgColumn }) {
  return [
    uniqueIndex(`${table}_org_external_id_key`).on(t.orgId, t.externalId),
    check(`${table}_external_id_length`, sql`char_length(${t.externalId}) between 1 and 200`),
  ];
}

/** One of the kernel's lists (domain/records.ts: statuses, priorities, kinds) as SQL literals: 'a','b'. */
function listed(values: readonly string[]): SQL {
  if (!values.every((v) => /^[a-z_]+$/.test(v))) throw new Error("listed values must be plain words");
  return sql.raw(values.map((v) => `'${v}'`).join(","));
}

/**
 * The CHECK that a column holds one of the kernel's values: the list is written once, in
 * domain/, and a value added there reaches the table through a generated migration.
 */
export const checkOneOf = (name: string, column: AnyPgColumn, values: readonly string[]) =>
  check(name, sql`${column} in (${listed(values)})`);

/**
 * A value's place in an ordered list of values (a task's priority: low 1 ... urgent 4), as SQL:
 * what ?sort= orders such fields by. The sort indexes are built on this very expression, and the
 * list statements write it the same way (db/statements/engine/read.ts), so the planner matches them.
 */
export function rankOf(values: readonly string[], column: SQL): SQL {
  return sql`array_position(array[${listed(values)}]::text[], ${column})`;
}

/**
 * The text of a record that ?q= searches, as a tsvector (English stemming: "removals" finds
 * "removal van"). The GIN index is built on this expression and the list statements match rows
 * with the same one, so the planner uses the index.
 */
export function searchVector(title: SQL, description: SQL): SQL {
  return sql`to_tsvector('english', ${title} || ' ' || coalesce(${description}, ''))`;
}
