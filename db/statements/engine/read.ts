import type { Column, SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import { JsonText } from "../../../domain/json-text.ts";
import type { PageEnd, PageRequest, Sortable } from "../../../domain/paging.ts";
import type { FiltersOf } from "../../../domain/resources.ts";
import type { Database } from "../../client.ts";
import { rankOf } from "../../schema/columns.ts";
import { fitsAnswer, runningBytes } from "./answer-size.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { filterConditions } from "./filters.ts";
import { FULL_VIEW, viewProjection, type RecordView } from "./projection.ts";
import type { RecordOf, Resource } from "./resource.ts";
import { sql } from "./sql-tag.ts";
import { runOne } from "./sql.ts";

// Reading records: one statement each, the key check and the tenant filter included.

export async function getRecord<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  id: string,
  options: { scope?: R["readScope"]; view?: RecordView | undefined } = {},
): Promise<{ caller: CallerOutcome; record: RecordOf<R> | null }> {
  const row = await runOne<CallerRow & { record: RecordOf<R> | null }>(
    db,
    sql`with ${callerCtes(actor, options.scope ?? resource.readScope)}
        select ${callerColumns},
               (select ${viewProjection(resource, "r", options.view ?? FULL_VIEW)} from ${resource.table} r
                 where r.org_id = ${CALLER_ORG} and r.id = ${id}::uuid) as record`,
  );
  return { caller: callerOf(row), record: row.record };
}

/** How a list answers beyond its filters: the records' view, full-text search, and the parent named in the path. */
export interface ListQuery {
  view?: RecordView | undefined;
  /** ?q=: a web-search style query (words, "quoted phrases", or, -excluded) over the resource's text. */
  search?: string | undefined;
  /** The parent the list is under (a project's milestones, a task's comments). */
  parentId?: string | undefined;
}

export interface ListOptions extends ListQuery {
  page: PageRequest;
  /**
   * The list's filters as a validated query gives them: those the resource declares
   * (domain/resources.ts), each one condition (filters.ts), and ?externalId=.
   */
  filters: Readonly<Record<string, unknown>> & { externalId?: string | undefined };
}

/** The filters a list of the resource takes, as its declaration gives them. */
export type ListFiltersOf<R> = R extends Resource<infer _T, string, string, infer _D, infer Declared> ? FiltersOf<Declared> : never;

export interface ListOutcome<Json> {
  caller: CallerOutcome;
  /** The page's records as the statement built them: JSON text, answered as it is. */
  records: JsonText<Json[]>;
  /** How many records the page holds. */
  count: number;
  parentFound: boolean;
  hasMore: boolean;
  /** Where this page ended (the last record's sort values and id), when there is more. */
  end: PageEnd | null;
}

/** The SQL a list of the resource sorts `field` by, over the row `r`, and the value a cursor carries for it. */
function sortColumn(resource: Resource, sortable: Sortable, field: string): { key: SQL; param: (value: string | null) => SQL; value: SQL } {
  const column = resource.publicColumns.find((c) => c.key === field);
  if (!column) throw new Error(`${resource.name} has no column for the sort field ${field}`);
  const kind = sortable[field]!;
  const ref = sql.raw(`r.${column.column}`);
  const cast = kind === "date" ? "date" : kind === "timestamp" ? "timestamptz" : "text";
  const typed = (value: string | null) => sql`${value}::${sql.raw(cast)}`;
  const value =
    kind === "timestamp"
      ? sql`to_char(${ref} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
      : kind === "date"
        ? sql`to_char(${ref}, 'YYYY-MM-DD')`
        : ref;
  if (typeof kind === "object") return { key: rankOf(kind.rank, ref), param: (v) => rankOf(kind.rank, typed(v)), value };
  return { key: ref, param: typed, value };
}

/** A sort's columns, ORDER BY and end-of-row key depend only on the resource and the sort: built once each. */
const sortOrders = new WeakMap<Resource, Map<string, ReturnType<typeof sortOrder>>>();

function sortOrder(resource: Resource, sort: PageRequest["sort"]) {
  const keys = sort.length ? sort : [{ field: "createdAt", descending: false }];
  // Creation order is every list's, whatever else it sorts by.
  const kinds: Sortable = { createdAt: "timestamp", ...resource.sortable };
  const columns = keys.map((k) => ({ ...sortColumn(resource, kinds, k.field), descending: k.descending }));
  const idDescending = keys.at(-1)!.descending;
  const direction = (descending: boolean) => sql.raw(descending ? "desc" : "asc");
  const orderBy = sql.join(
    [...columns.map((c) => sql`${c.key} ${direction(c.descending)}`), sql`r.id ${direction(idDescending)}`],
    sql`, `,
  );
  const end = sql`json_build_array(${sql.join([...columns.map((c) => c.value), sql`r.id`], sql`, `)})`;
  return { columns, idDescending, orderBy, end };
}

/**
 * The order of a page, the condition "after the previous page's end" and what each row's end
 * would be. Creation order is (created_at, id). With ?sort=, the keys then the id, which takes the
 * direction of the last key, so a one-key sort reads its index (org_id, key, id) forward or back.
 */
function ordering(resource: Resource, page: PageRequest) {
  let orders = sortOrders.get(resource);
  if (!orders) sortOrders.set(resource, (orders = new Map()));
  const sortKey = page.sort.map((k) => `${k.descending ? "-" : ""}${k.field}`).join(",");
  let order = orders.get(sortKey);
  if (!order) {
    order = sortOrder(resource, page.sort);
    // Sorts are the resource's sortable fields in a checked order: a few dozen at most are kept.
    if (orders.size < 64) orders.set(sortKey, order);
  }
  const { columns, idDescending, orderBy, end } = order;
  let after: SQL | null = null;
  if (page.after) {
    const { values, id } = page.after;
    const all = [
      ...columns.map((c, i) => ({ key: c.key, value: c.param(values[i] ?? null), descending: c.descending })),
      { key: sql`r.id`, value: sql`${id}::uuid`, descending: idDescending },
    ];
    if (all.every((c) => c.descending === idDescending)) {
      // One direction: a row comparison, which the index serves as a range.
      after = sql`(${sql.join(
        all.map((c) => c.key),
        sql`, `,
      )}) ${sql.raw(idDescending ? "<" : ">")} (${sql.join(
        all.map((c) => c.value),
        sql`, `,
      )})`;
    } else {
      // Mixed directions: after on the first key, or equal on it and after on the next, ...
      const branches = all.map((c, i) =>
        sql.join(
          [...all.slice(0, i).map((p) => sql`${p.key} = ${p.value}`), sql`${c.key} ${sql.raw(c.descending ? "<" : ">")} ${c.value}`],
          sql` and `,
        ),
      );
      after = sql`(${sql.join(
        branches.map((b) => sql`(${b})`),
        sql` or `,
      )})`;
    }
  }
  return { orderBy, end, after };
}

/**
 * Which rows of the resource a list (or its counts) selects, over the row `r`: the caller's
 * organisation, the parent named in the path (which must exist), the filters and the search.
 */
function selection(resource: Resource, options: Omit<ListOptions, "page" | "view">) {
  // Records of a parent (a project's milestones) are listed under it: the parent must exist.
  const { parent } = resource;
  if (parent && options.parentId === undefined) throw new Error(`${resource.name} are listed under their parent`);
  const underParent = parent ? [sql`${(resource.row as unknown as Record<string, Column>)[parent.field]} = ${options.parentId}::uuid`] : [];
  const conditions = [sql`r.org_id = ${CALLER_ORG}`, ...underParent, ...filterConditions(resource, options.filters)];
  if (options.filters.externalId !== undefined) conditions.push(sql`r.external_id = ${options.filters.externalId}`);
  if (options.search !== undefined) {
    if (!resource.search) throw new Error(`${resource.name} has no full-text search`);
    conditions.push(sql`${resource.search("r")} @@ websearch_to_tsquery('english', ${options.search})`);
  }
  const parentFound = parent
    ? sql`exists (select 1 from ${parent.table} p where p.org_id = ${CALLER_ORG} and p.id = ${options.parentId}::uuid)`
    : sql`true`;
  return { conditions, parentFound };
}

/**
 * How many records a list with these filters selects, in all and by the value of `groupBy` (a
 * column of the resource: a status), in one statement: what the console says a view leaves out.
 */
export async function countRecords(
  db: Database,
  actor: Actor,
  resource: Resource,
  options: Omit<ListOptions, "page" | "view">,
  groupBy: string | null,
): Promise<{ caller: CallerOutcome; parentFound: boolean; total: number; groups: Record<string, number> }> {
  const { conditions, parentFound } = selection(resource, options);
  const column = groupBy ? resource.publicColumns.find((c) => c.key === groupBy) : undefined;
  if (groupBy && !column) throw new Error(`${resource.name} has no column ${groupBy} to count by`);
  const groups = column
    ? sql`(select coalesce(json_object_agg(g.value, g.n), '{}'::json) from (
             select ${sql.raw(`r.${column.column}`)} as value, count(*)::int as n from ${resource.table} r
              where ${sql.join(conditions, sql` and `)} group by 1) g)`
    : sql`'{}'::json`;
  const row = await runOne<CallerRow & { parentFound: boolean; total: number; groups: Record<string, number> }>(
    db,
    sql`with ${callerCtes(actor, resource.readScope)}
        select ${callerColumns}, ${parentFound} as "parentFound",
               (select count(*)::int from ${resource.table} r where ${sql.join(conditions, sql` and `)}) as total,
               ${groups} as groups`,
  );
  return { caller: callerOf(row), parentFound: row.parentFound, total: row.total, groups: row.groups };
}

/**
 * A page in the list's order: keyset paging, so page 1000 costs what page 1 does. The page's sort
 * keys were checked against what the resource sorts by (`resource.sortable`). A page ends at
 * `limit` records or at ANSWER_BYTES of them, whichever comes first (answer-size.ts).
 */
export async function listRecords<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  options: ListOptions,
): Promise<ListOutcome<RecordOf<R>>> {
  const { limit } = options.page;
  const { orderBy, end, after } = ordering(resource, options.page);
  const { conditions, parentFound } = selection(resource, options);
  if (after) conditions.push(after);
  const row = await runOne<
    CallerRow & { records: string; count: number; parentFound: boolean; end: [...(string | null)[], string] | null; hasMore: boolean }
  >(
    db,
    sql`with ${callerCtes(actor, resource.readScope)},
        found as (
          select ${viewProjection(resource, "r", options.view ?? FULL_VIEW)} as record, ${end} as end_key, row_number() over (order by ${orderBy}) as n
            from (select r.* from ${resource.table} r
                   where ${sql.join(conditions, sql` and `)}
                   order by ${orderBy}
                   limit ${limit + 1}) r
        ),
        page as (
          select f.*, ${runningBytes(sql`f.record`, sql`f.n`)} as bytes from found f
        ),
        kept as (select p.* from page p where p.n <= ${limit} and ${fitsAnswer("p")})
        select ${callerColumns}, ${parentFound} as "parentFound",
               (select coalesce(json_agg(k.record order by k.n), '[]'::json)::text from kept k) as records,
               (select count(*)::int from kept) as count,
               (select k.end_key from kept k order by k.n desc limit 1) as end,
               (select count(*) from page) > (select count(*) from kept) as "hasMore"`,
  );
  const endKey = row.hasMore && row.end ? { values: row.end.slice(0, -1) as (string | null)[], id: row.end.at(-1) as string } : null;
  return {
    caller: callerOf(row),
    records: new JsonText<RecordOf<R>[]>(row.records),
    count: row.count,
    parentFound: row.parentFound,
    hasMore: row.hasMore,
    end: endKey,
  };
}
