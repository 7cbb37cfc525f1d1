import type { Column, SQL } from "drizzle-orm";
import type { ListFilter } from "../../../domain/resources.ts";
import type { Resource } from "./resource.ts";
import { sql } from "./sql-tag.ts";

// A list's filters as SQL, from the resource's declaration (domain/resources.ts): each filter a
// validated query sets is one condition over the listed row `r`, in the declaration's order.

function condition(filter: ListFilter, column: Column, value: unknown): SQL {
  switch (filter.kind) {
    case "id":
    case "person": // `me` is resolved to the caller's person before the list (services/resource-service.ts)
      return sql`${column} = ${value}::uuid`;
    case "holds":
      return sql`${column} @> array[${value}::uuid]`;
    case "oneOf":
      return sql`${column} = any(${sql.param(value)}::text[])`;
    case "before":
      return sql`${column} < ${value}::date`;
    case "after":
      return sql`${column} > ${value}::date`;
    case "since":
      return sql`${column} >= ${value}::timestamptz`;
    case "flag":
      return sql`${column} = ${value}`;
  }
}

/** The conditions the filters in `values` ask for (by query parameter; the validated query's values). */
export function filterConditions(resource: Resource, values: Readonly<Record<string, unknown>>): SQL[] {
  const row = resource.row as unknown as Record<string, Column>;
  return Object.entries(resource.declaration.filters).flatMap(([name, filter]) =>
    values[name] === undefined ? [] : [condition(filter, row[filter.field]!, values[name])],
  );
}
