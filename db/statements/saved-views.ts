import type { Actor } from "../../domain/actor.ts";
import type { SavedViewResource } from "../../domain/saved-views.ts";
import type { Database } from "../client.ts";
import { savedViews } from "../schema/index.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { iso, personJson, withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// Saved views (docs/people.md "Saved views"): a person's named view of a list, kept as its query
// string. Any member saves their own; they see their own and those shared in the organisation, and
// only the person who saved a view changes or deletes it. Each is one statement that checks the
// session with the work, as every settings call does; a view is no record, so no event.

export interface SavedView {
  id: string;
  name: string;
  resource: SavedViewResource;
  query: string;
  shared: boolean;
  owner: { id: string; name: string } | null;
  createdAt: string;
  updatedAt: string;
}

export interface ViewValues {
  name?: string | undefined;
  query?: string | undefined;
  shared?: boolean | undefined;
}

const viewJson = sql`json_build_object('id', v.id, 'name', v.name, 'resource', v.resource, 'query', v.query, 'shared', v.shared,
  'owner', ${personJson("v.user_id")}, 'createdAt', ${iso("v.created_at")}, 'updatedAt', ${iso("v.updated_at")})`;

/** The caller's person: only a session has one (the routes take nothing else). */
const CALLER_USER = sql`(select user_id from key)`;

/** The caller's own views and those shared with the organisation, of one resource or all, in creation order. */
export async function listViews(
  db: Database,
  actor: Actor,
  resource: SavedViewResource | undefined,
): Promise<SettingsOutcome<{ views: SavedView[] }>> {
  const { caller, role, userId, row } = await withCaller<{ views: SavedView[] | null }>(
    db,
    actor,
    null,
    null,
    sql`(select json_agg(${viewJson} order by v.created_at, v.id) from ${savedViews} v
          where v.org_id = ${CALLER_ORG} and (v.user_id = ${CALLER_USER} or v.shared)
            and (${resource ?? null}::text is null or v.resource = ${resource ?? null}::text)) as views`,
  );
  return { caller, role, userId, views: row.views ?? [] };
}

/** Saves a view of the caller's. A second view of the resource with the name is the unique index's (saved_views_owner_name_key). */
export async function createView(
  db: Database,
  actor: Actor,
  values: { id: string; name: string; resource: SavedViewResource; query: string; shared: boolean },
): Promise<SettingsOutcome<{ view: SavedView | null }>> {
  const { caller, role, userId, row } = await withCaller<{ view: SavedView | null }>(
    db,
    actor,
    null,
    sql`v as (
          insert into ${savedViews} (id, org_id, user_id, name, resource, query, shared)
          select ${values.id}::uuid, a.org_id, k.user_id, ${values.name}, ${values.resource}, ${values.query}, ${values.shared}
            from auth a cross join key k where k.user_id is not null
          returning *
        )`,
    sql`(select ${viewJson} from v) as view`,
  );
  return { caller, role, userId, view: row.view };
}

export interface ViewChange {
  /** The caller may see the view: theirs, or shared. */
  found: boolean;
  /** It is the caller's: only they change or delete it. */
  owned: boolean;
  view: SavedView | null;
}

/** Changes (values) or deletes (null) one of the caller's views. */
export async function changeView(db: Database, actor: Actor, id: string, values: ViewValues | null): Promise<SettingsOutcome<ViewChange>> {
  const write =
    values === null
      ? sql`delete from ${savedViews} v using target t where v.id = t.id and t.owned returning v.*`
      : sql`update ${savedViews} v
               set name = coalesce(${values.name ?? null}::text, v.name), query = coalesce(${values.query ?? null}::text, v.query),
                   shared = coalesce(${values.shared ?? null}::boolean, v.shared), updated_at = now()
              from target t where v.id = t.id and t.owned
            returning v.*`;
  const { caller, role, userId, row } = await withCaller<{ found: boolean; owned: boolean; view: SavedView | null }>(
    db,
    actor,
    null,
    sql`target as (
          select x.id, x.user_id = ${CALLER_USER} as owned from ${savedViews} x
           where x.org_id = ${CALLER_ORG} and x.id = ${id}::uuid and (x.user_id = ${CALLER_USER} or x.shared)
           for update
        ),
        v as (${write})`,
    sql`exists (select 1 from target) as found, coalesce((select owned from target), false) as owned, (select ${viewJson} from v) as view`,
  );
  return { caller, role, userId, found: row.found, owned: row.owned, view: row.view };
}

/**
 * Views saved as `userId`'s, with the ids given: the demo owner's (services/seed/demo-views.ts),
 * whose fixed ids the OpenAPI document's examples name. Not a call of the API: no session to check.
 */
export async function insertViews(
  db: Database,
  orgId: string,
  userId: string,
  views: ReadonlyArray<{ id: string; name: string; resource: SavedViewResource; query: string; shared: boolean }>,
): Promise<void> {
  for (const view of views)
    await run(
      db,
      sql`insert into ${savedViews} (id, org_id, user_id, name, resource, query, shared)
          values (${view.id}::uuid, ${orgId}::uuid, ${userId}::uuid, ${view.name}, ${view.resource}, ${view.query}, ${view.shared})`,
    );
}
