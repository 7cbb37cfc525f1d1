import { sql } from "drizzle-orm";
import type { Scope } from "../../functions/lib/scopes.ts";
import type { Database } from "../client.ts";
import { actorColumns, actorCtes, assertAllowed, type Actor } from "./actor.ts";
import { runOne } from "./sql.ts";

export interface Caller {
  orgId: string;
  application: string;
  scopes: Scope[];
  changeVersion: number;
}

/**
 * The caller behind a key, with its organisation's changeVersion: GET /v1 in one statement.
 * Also the check a refused request makes before answering 400 (SPEC: 401 and 403 come first).
 */
export async function describeCaller(db: Database, actor: Actor, scope: Scope | null = null): Promise<Caller> {
  const row = await runOne<{ key_found: boolean; allowed: boolean; caller: Omit<Caller, "changeVersion"> & { changeVersion: string } | null }>(
    db,
    sql`with ${actorCtes(actor, scope)}
        select ${actorColumns},
               (select json_build_object('orgId', k.org_id, 'application', k.application, 'scopes', k.scopes,
                                         'changeVersion', o.change_version::text)
                  from key k join organisations o on o.id = k.org_id) as caller`,
  );
  assertAllowed(row, actor, scope);
  return { ...row.caller!, changeVersion: Number(row.caller!.changeVersion) };
}

export interface OrganisationRecord {
  id: string;
  name: string;
  changeVersion: number;
  createdAt: string;
  updatedAt: string;
}

export async function getOrganisation(db: Database, actor: Actor): Promise<OrganisationRecord> {
  const row = await runOne<{ key_found: boolean; allowed: boolean; organisation: OrganisationRecord & { changeVersion: string } }>(
    db,
    sql`with ${actorCtes(actor, "organisation.read")}
        select ${actorColumns},
               (select json_build_object(
                         'id', o.id, 'name', o.name, 'changeVersion', o.change_version::text,
                         'createdAt', to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                         'updatedAt', to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                  from organisations o where o.id = (select org_id from auth)) as organisation`,
  );
  assertAllowed(row, actor, "organisation.read");
  return { ...row.organisation, changeVersion: Number(row.organisation.changeVersion) };
}
