import { sql, type SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import type { PageRequest } from "../../domain/paging.ts";
import type { Database } from "../client.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./caller.ts";
import { projection } from "./projection.ts";
import type { RecordOf, Resource } from "./resource.ts";
import { runOne } from "./sql.ts";

// Reading records: one statement each, the key check and the tenant filter included.

export async function getRecord<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  id: string,
  scope = resource.readScope,
): Promise<{ caller: CallerOutcome; record: RecordOf<R> | null }> {
  const row = await runOne<CallerRow & { record: RecordOf<R> | null }>(
    db,
    sql`with ${callerCtes(actor, scope)}
        select ${callerColumns},
               (select ${projection(resource, "r")} from ${sql.identifier(resource.name)} r
                 where r.org_id = ${CALLER_ORG} and r.id = ${id}::uuid) as record`,
  );
  return { caller: callerOf(row), record: row.record };
}

export interface ListOptions {
  /** Boolean SQL over the resource's `row` (r), already validated by the service. */
  filters: SQL[];
  page: PageRequest;
  /** Only the record with this external id (?externalId=). */
  externalId?: string | undefined;
  /** When listing under a parent (a project's milestones): the parent must exist. */
  parent?: { table: string; id: string };
}

export interface ListOutcome<Json> {
  caller: CallerOutcome;
  records: Json[];
  parentFound: boolean;
  hasMore: boolean;
}

/** A page in (createdAt, id) order: keyset paging, so page 1000 costs what page 1 does. */
export async function listRecords<R extends Resource>(db: Database, actor: Actor, resource: R, options: ListOptions): Promise<ListOutcome<RecordOf<R>>> {
  const { limit, after } = options.page;
  const conditions = [sql`r.org_id = ${CALLER_ORG}`, ...options.filters];
  if (options.externalId !== undefined) conditions.push(sql`r.external_id = ${options.externalId}`);
  if (after) conditions.push(sql`(r.created_at, r.id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
  const parent = options.parent
    ? sql`exists (select 1 from ${sql.identifier(options.parent.table)} p where p.org_id = ${CALLER_ORG} and p.id = ${options.parent.id}::uuid)`
    : sql`true`;
  const row = await runOne<CallerRow & { records: RecordOf<R>[]; parent_found: boolean }>(
    db,
    sql`with ${callerCtes(actor, resource.readScope)}
        select ${callerColumns}, ${parent} as parent_found,
               (select coalesce(json_agg(x.record order by x.created_at, x.id), '[]'::json) from (
                  select ${projection(resource, "r")} as record, r.created_at, r.id
                    from ${sql.identifier(resource.name)} r
                   where ${sql.join(conditions, sql` and `)}
                   order by r.created_at, r.id
                   limit ${limit + 1}
               ) x) as records`,
  );
  return { caller: callerOf(row), records: row.records.slice(0, limit), parentFound: row.parent_found, hasMore: row.records.length > limit };
}
