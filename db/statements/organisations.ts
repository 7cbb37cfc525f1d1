import type { Actor } from "../../domain/actor.ts";
import { uuidv7 } from "../../domain/ids.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { organisations } from "../schema/index.ts";
import { usageColumn, usageOf, type FileUsage } from "./attachments.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerOutcome, type CallerRow } from "./engine/caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

export interface Organisation {
  id: string;
  name: string;
}

/** Organisations are made outside the API (the CLI, the seed): not an event resource, no changeVersion. */
export async function createOrganisation(db: Database, input: { name: string; id?: string | undefined }): Promise<Organisation> {
  const [row] = await run<Organisation>(
    db,
    sql`insert into ${organisations} (id, name) values (${input.id ?? uuidv7()}, ${input.name}) returning id, name`,
  );
  return row!;
}

/** Whether the database holds any organisation yet (npm run dev seeds a demo into an empty one). */
export async function hasOrganisations(db: Database): Promise<boolean> {
  const [row] = await run<{ any: boolean }>(db, sql`select exists (select 1 from ${organisations}) as any`);
  return row!.any;
}

export async function findOrganisation(db: Database, id: string): Promise<Organisation | undefined> {
  const [row] = await run<Organisation>(db, sql`select id, name from ${organisations} where id = ${id}::uuid`);
  return row;
}

/** The caller behind a key, with its organisation's changeVersion. */
export interface Caller {
  orgId: string;
  /** The key's id; null for a person or a system caller (the CLI). */
  keyId: string | null;
  /** The session's id, for a person signed in; else null. */
  sessionId: string | null;
  /** For an OAuth application's access token: its grant and installation; else null. */
  grantId: string | null;
  installationId: string | null;
  application: string;
  scopes: Scope[];
  changeVersion: number;
}

/**
 * Who is calling, in one statement: GET /v1, a socket's key, and the check a request refused
 * before the database was asked makes (401 and 403 come first).
 */
const selfColumn = sql`(select json_build_object('orgId', k.org_id, 'keyId', k.id, 'sessionId', k.session_id,
                                         'grantId', case when k.installation_id is not null then k.credential_id end,
                                         'installationId', k.installation_id, 'application', k.application, 'scopes', k.scopes,
                                         'changeVersion', o.change_version::text)
                  from key k join ${organisations} o on o.id = k.org_id)`;

type SelfRow = CallerRow & { self: (Omit<Caller, "changeVersion"> & { changeVersion: string }) | null };

const selfOf = (row: SelfRow) => row.self && { ...row.self, changeVersion: Number(row.self.changeVersion) };

export async function describeCaller(
  db: Database,
  actor: Actor,
  scope: Scope | null = null,
): Promise<{ caller: CallerOutcome; self: Caller | null }> {
  const row = await runOne<SelfRow>(db, sql`with ${callerCtes(actor, scope)} select ${callerColumns}, ${selfColumn} as self`);
  return { caller: callerOf(row), self: selfOf(row) };
}

/** GET /v1: who is calling, and their organisation's file usage and quota, in one statement. */
export async function describeSelf(db: Database, actor: Actor): Promise<{ caller: CallerOutcome; self: Caller | null; files: FileUsage }> {
  const row = await runOne<SelfRow & { files: { usedBytes: string | null; quotaBytes: string | null } }>(
    db,
    sql`with ${callerCtes(actor, null)} select ${callerColumns}, ${selfColumn} as self, ${usageColumn} as files`,
  );
  return { caller: callerOf(row), self: selfOf(row), files: usageOf(row.files) };
}

export interface OrganisationRecord {
  id: string;
  name: string;
  changeVersion: number;
  createdAt: string;
  updatedAt: string;
}

export async function getOrganisation(
  db: Database,
  actor: Actor,
): Promise<{ caller: CallerOutcome; organisation: OrganisationRecord | null }> {
  const row = await runOne<CallerRow & { organisation: (OrganisationRecord & { changeVersion: string }) | null }>(
    db,
    sql`with ${callerCtes(actor, "organisation.read")}
        select ${callerColumns},
               (select json_build_object(
                         'id', o.id, 'name', o.name, 'changeVersion', o.change_version::text,
                         'createdAt', to_char(o.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                         'updatedAt', to_char(o.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
                  from ${organisations} o where o.id = ${CALLER_ORG}) as organisation`,
  );
  return {
    caller: callerOf(row),
    organisation: row.organisation && { ...row.organisation, changeVersion: Number(row.organisation.changeVersion) },
  };
}
