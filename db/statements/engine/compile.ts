import { Column, Name, Param, Placeholder, SQL, StringChunk, Table } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";

/** Compiles statements as drizzle-kit names the columns: snake_case. */
export const dialect = new PgDialect({ casing: "snake_case" });

export interface CompiledStatement {
  sql: string;
  params: unknown[];
}

/**
 * A statement's text and parameters, as drizzle's `sqlToQuery` gives them, in one walk over the
 * `sql` tree with one string and one array. drizzle's own walk tests every chunk against up to
 * eleven classes through their prototype chains and builds an object per chunk, which made it most
 * of the cost of building a write (a 9 KB statement of about a thousand chunks). The chunks our
 * statements hold are handled here; any other kind (a placeholder, a subquery, inlined
 * parameters, a view, an enum) hands the whole statement to drizzle. A Database handle made with
 * `checkStatements` compiles each statement both ways and fails on any difference (the tests'
 * Workers run so: test/helpers/worker.ts).
 */
export function compileStatement(query: SQL): CompiledStatement {
  const out: CompiledStatement = { sql: "", params: [] };
  return walk(query, out) ? out : dialect.sqlToQuery(query);
}

/** Compiles the statement both ways and throws when they differ (see compileStatement). */
export function compileStatementChecked(query: SQL): CompiledStatement {
  const ours = compileStatement(query);
  const theirs = dialect.sqlToQuery(query);
  if (ours.sql !== theirs.sql || !sameParams(ours.params, theirs.params)) {
    throw new Error(
      `compileStatement differs from drizzle's sqlToQuery:\nours:   ${ours.sql}\n${JSON.stringify(ours.params)}\ntheirs: ${theirs.sql}\n${JSON.stringify(theirs.params)}`,
    );
  }
  return ours;
}

function sameParams(a: unknown[], b: unknown[]): boolean {
  return a.length === b.length && a.every((value, i) => Object.is(value, b[i]) || JSON.stringify(value) === JSON.stringify(b[i]));
}

/** Appends one chunk; false when it is of a kind left to drizzle. */
function walk(chunk: unknown, out: CompiledStatement): boolean {
  if (chunk instanceof StringChunk) {
    const value = chunk.value as string[];
    out.sql += value.length === 1 ? value[0]! : value.join("");
    return true;
  }
  if (chunk instanceof SQL) {
    if ((chunk as unknown as { shouldInlineParams: boolean }).shouldInlineParams) return false;
    for (const part of chunk.queryChunks) if (!walk(part, out)) return false;
    return true;
  }
  if (chunk === null || typeof chunk !== "object") {
    if (chunk === undefined) return true;
    if (typeof chunk === "function") return false;
    return param(chunk, out);
  }
  if (chunk instanceof Param) {
    if (chunk.value instanceof Placeholder) return false;
    const mapped: unknown = chunk.value === null ? null : chunk.encoder.mapToDriverValue(chunk.value);
    return mapped instanceof SQL ? walk(mapped, out) : param(mapped, out);
  }
  if (chunk instanceof Name) {
    out.sql += dialect.escapeName(chunk.value);
    return true;
  }
  if (chunk instanceof Column || chunk instanceof Table) {
    out.sql += nameOf(chunk);
    return true;
  }
  if (Array.isArray(chunk)) {
    out.sql += "(";
    for (let i = 0; i < chunk.length; i++) {
      if (i > 0) out.sql += ", ";
      if (!walk(chunk[i], out)) return false;
    }
    out.sql += ")";
    return true;
  }
  // A drizzle entity of another kind, or anything with its own SQL: drizzle's rules apply.
  if ("getSQL" in chunk || Symbol.for("drizzle:entityKind") in (chunk.constructor ?? {})) return false;
  // A plain value (an object, a Date): one parameter, as drizzle passes it.
  return param(chunk, out);
}

function param(value: unknown, out: CompiledStatement): true {
  out.params.push(value);
  out.sql += `$${out.params.length}`;
  return true;
}

/** A column's or table's quoted name, as drizzle writes it (they hold no parameters). */
const names = new WeakMap<Column | Table, string>();
function nameOf(entity: Column | Table): string {
  let name = names.get(entity);
  if (name === undefined) {
    name = dialect.sqlToQuery(new SQL([entity])).sql;
    names.set(entity, name);
  }
  return name;
}
