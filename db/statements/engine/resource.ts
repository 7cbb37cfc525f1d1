import { getTableColumns, getTableName, type Column, type SQL } from "drizzle-orm";
import { toSnakeCase } from "drizzle-orm/casing";
import { alias, type PgTable } from "drizzle-orm/pg-core";
import type { Sortable } from "../../../domain/paging.ts";
import { scopesOf, type ResourceDeclaration } from "../../../domain/resources.ts";
import type { Scope } from "../../../domain/scopes.ts";
import type { Expansion } from "./projection.ts";

// A resource as the statement builders see it: its declaration (domain/resources.ts: its type,
// scopes, sorts and list filters) and its drizzle table, whose columns are declared once, in
// db/schema/<table>.ts. Every column but the bookkeeping ones (id, orgId,
// version, createdAt, updatedAt, always answered first and last) is a public field unless it is
// named `hidden`, so a new column reaches the record type (RecordOf) at once, and the public
// schema that must equal it (functions/schemas) fails to compile until it says what to do with it.

/** How a column travels between SQL and JSON. */
export type ColumnKind =
  "uuid" | "uuidArray" | "text" | "textArray" | "date" | "numeric" | "decimal" | "boolean" | "integer" | "timestamp" | "json";

export interface ColumnDef {
  /** The public (camelCase) field name: the drizzle key. */
  key: string;
  /** The SQL column name. */
  column: string;
  kind: ColumnKind;
}

const BOOKKEEPING = ["id", "orgId", "version", "createdAt", "updatedAt"] as const;
type Bookkeeping = (typeof BOOKKEEPING)[number];

type ColumnsOf<T extends PgTable> = T["_"]["columns"];
type FieldKey<T extends PgTable> = Exclude<Extract<keyof ColumnsOf<T>, string>, Bookkeeping>;

/**
 * A field a record answers that no column of its own holds: computed from other rows when the
 * record is read (a task's subtaskCount, a project's progress), in the same statement. `sql`
 * gives its JSON value for the row named `alias`; it takes no parameters. A derived field moves no
 * version and emits no event when the rows it is computed from change: their own events say so.
 */
export interface Derived<T> {
  sql(alias: string): SQL;
  /**
   * For an object value, its keys in the order `sql` builds them: a stored answer (an
   * Idempotency-Key replay) went through jsonb, which orders keys its own way, and is put back.
   */
  keys?: readonly string[];
  /** Type-level only: the field's JSON type. */
  readonly _type?: T;
}

export const derived = <T>(sql: (alias: string) => SQL, keys?: readonly string[]): Derived<T> => (keys ? { sql, keys } : { sql });

export interface ResourceOptions<
  T extends PgTable,
  Hidden extends FieldKey<T>,
  Money extends FieldKey<T>,
  D extends Record<string, Derived<unknown>>,
> {
  /** For records listed under a parent (the declaration's `parent`): the parent's table. */
  parent?: PgTable;
  /** Columns written but never answered (a webhook's signing secret). */
  hidden?: readonly Hidden[];
  /** numeric columns answered as decimal strings with 2 places (money), not JSON numbers. */
  money?: readonly Money[];
  /**
   * False for integration settings (webhooks) whose writes are not operational data: they move
   * no changeVersion and emit no event. Default true.
   */
  emitsEvents?: boolean;
  /** Fields computed when the record is read, answered after the table's own (before version). */
  derived?: D;
  /** ?q=: the tsvector of the row `alias` its full-text index is built on (db/schema/columns.ts searchVector). */
  search?: (alias: string) => SQL;
  /** ?expand=: the related records a read may embed, by name. */
  expansions?: Record<string, Expansion>;
}

export interface Resource<
  T extends PgTable = PgTable,
  Fields extends string = string,
  Money extends string = string,
  D extends Record<string, Derived<unknown>> = Record<string, Derived<unknown>>,
  Declared extends ResourceDeclaration = ResourceDeclaration,
> {
  table: T;
  /** What the kernel declares of it: its nouns, paths, scopes, sorts and list filters. */
  declaration: Declared;
  /** The SQL table name. */
  name: string;
  /** Its event name prefix, read scope and manage scope, from the declaration. */
  type: string;
  readScope: Scope;
  manageScope: Scope;
  emitsEvents: boolean;
  /** Every field a write may set, public or hidden. */
  writable: Record<string, ColumnDef>;
  /** The public record's columns, in response order (bookkeeping columns around the table's own). */
  publicColumns: ColumnDef[];
  /** The fields computed when read, answered after the table's own public columns. */
  derived: D;
  /** Every public field name, in response order: the columns and the derived fields. */
  fieldNames: string[];
  sortable: Sortable;
  /** For records listed under a parent: the parent's table, and the column naming it (<parent>Id). */
  parent: { table: PgTable; field: string } | null;
  search: ((alias: string) => SQL) | null;
  expansions: Record<string, Expansion>;
  /** The table as a listed or read row, `r`: fragments name its columns as row.projectId. */
  row: T;
  /** The table as the row locked by an update or delete, `l`. */
  locked: T;
  /** Type-level only: the public field names and the money fields. */
  readonly _fields?: Fields;
  readonly _money?: Money;
}

function kindOf(column: Column, money: boolean): ColumnKind {
  switch (column.columnType) {
    case "PgUUID":
      return "uuid";
    case "PgText":
    case "PgVarchar":
      return "text";
    case "PgArray":
      return (column as unknown as { baseColumn: Column }).baseColumn.columnType === "PgUUID" ? "uuidArray" : "textArray";
    case "PgDateString":
    case "PgDate":
      return "date";
    case "PgNumeric":
      return money ? "decimal" : "numeric";
    case "PgBoolean":
      return "boolean";
    case "PgInteger":
    case "PgBigInt53":
      return "integer";
    case "PgTimestamp":
    case "PgTimestampString":
      return "timestamp";
    case "PgJsonb":
      return "json";
    default:
      throw new Error(
        `column ${column.name} has type ${column.columnType}, which no record field has yet: add it to db/statements/engine/resource.ts`,
      );
  }
}

export function defineResource<
  Declared extends ResourceDeclaration,
  T extends PgTable,
  Hidden extends FieldKey<T> = never,
  Money extends FieldKey<T> = never,
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no derived fields unless declared
  D extends Record<string, Derived<unknown>> = {},
>(
  declaration: Declared,
  table: T,
  options: ResourceOptions<T, Hidden, Money, D> = {},
): Resource<T, Exclude<FieldKey<T>, Hidden>, Money, D, Declared> {
  const hidden = new Set<string>(options.hidden ?? []);
  const money = new Set<string>(options.money ?? []);
  const def = (key: string, column: Column): ColumnDef => ({ key, column: toSnakeCase(key), kind: kindOf(column, money.has(key)) });
  const columns = Object.entries(getTableColumns(table));
  const own = columns.filter(([key]) => !(BOOKKEEPING as readonly string[]).includes(key));
  const bookkeeping = (key: Bookkeeping) => def(key, columns.find(([k]) => k === key)![1]);
  const publicColumns = [
    bookkeeping("id"),
    bookkeeping("orgId"),
    ...own.filter(([key]) => !hidden.has(key)).map(([key, column]) => def(key, column)),
    bookkeeping("version"),
    bookkeeping("createdAt"),
    bookkeeping("updatedAt"),
  ];
  const derivedFields = options.derived ?? ({} as D);
  const beforeVersion = publicColumns.slice(0, -3).map((c) => c.key);
  const name = getTableName(table);
  const field = (key: string, why: string) => {
    if (!publicColumns.some((c) => c.key === key)) throw new Error(`${name} has no column ${key}, which ${why} names`);
    return key;
  };
  for (const [query, filter] of Object.entries(declaration.filters)) field(filter.field, `the list filter ${query}`);
  for (const key of Object.keys(declaration.sortable)) field(key, "a sort");
  if (Boolean(declaration.parent) !== Boolean(options.parent))
    throw new Error(`${name}: a parent is declared with its table, or not at all`);
  const scopes = scopesOf(declaration);
  return {
    table,
    declaration,
    name,
    type: declaration.type,
    readScope: scopes.read,
    manageScope: scopes.manage,
    emitsEvents: options.emitsEvents ?? true,
    writable: Object.fromEntries(own.map(([key, column]) => [key, def(key, column)])),
    publicColumns,
    derived: derivedFields,
    fieldNames: [...beforeVersion, ...Object.keys(derivedFields), "version", "createdAt", "updatedAt"],
    sortable: declaration.sortable,
    parent: options.parent ? { table: options.parent, field: field(`${declaration.parent}Id`, "the parent") } : null,
    search: options.search ?? null,
    expansions: options.expansions ?? {},
    row: alias(table, "r") as unknown as T,
    locked: alias(table, "l") as unknown as T,
  };
}

// ---- The record as JSON, from the table's column types ------------------------------------------

type JsonOf<C extends Column, Money extends boolean> = C["_"]["columnType"] extends "PgTimestamp" | "PgTimestampString"
  ? string
  : C["_"]["columnType"] extends "PgNumeric"
    ? Money extends true
      ? string
      : number
    : C["_"]["data"];

type Nullable<C extends Column, T> = C["_"]["notNull"] extends true ? T : T | null;

/**
 * The public record of a resource, as the API answers it: every public field with its JSON type
 * (timestamps and dates as strings, numeric as a number unless it is money), null where the
 * column is nullable. Public schemas must have exactly this shape (see functions/schemas).
 */
export type RecordOf<R> =
  R extends Resource<infer T, infer Fields, infer Money, infer D>
    ? {
        [K in Bookkeeping | Fields]: K extends keyof ColumnsOf<T>
          ? ColumnsOf<T>[K] extends Column
            ? Nullable<ColumnsOf<T>[K], JsonOf<ColumnsOf<T>[K], K extends Money ? true : false>>
            : never
          : never;
      } & { [K in keyof D]: D[K] extends Derived<infer V> ? V : never }
    : never;

/** The fields a write may set (hidden ones included), each with its JSON value. */
export type FieldsOf<R> =
  R extends Resource<infer T, string, infer Money>
    ? // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the table's own fields, no derived ones
      Partial<Omit<RecordOf<Resource<T, FieldKey<T>, Money, {}>>, Bookkeeping>>
    : never;

/** What a statement writes: each field's JSON value, or an SQL fragment it computes (now(), a value of the caller's key). */
export type WritableOf<R> = { [K in keyof FieldsOf<R>]?: FieldsOf<R>[K] | SQL };
