import { sql, type SQL } from "drizzle-orm";
import { ApiError } from "../../functions/errors.ts";
import { ALL_SCOPES, type Scope } from "../../functions/lib/scopes.ts";

/**
 * Who is acting. An API caller is known by the SHA-256 of its key, checked inside the very
 * statement that does the work (one round trip); a system caller (the CLI, the seed) names its
 * organisation and holds every scope.
 */
export type Actor = { keyHash: string } | { orgId: string };

/**
 * The CTEs every statement starts with: `key` (the caller, if its key is valid), `auth` (the
 * caller's organisation, only if it holds `scope`), and `touch`, which keeps last_used_at fresh
 * at most once a minute so reads do not turn into a write per request.
 */
export function actorCtes(actor: Actor, scope: Scope | null): SQL {
  const key =
    "keyHash" in actor
      ? sql`key as (
          select k.id, k.org_id, k.application, k.scopes from api_keys k
           where k.key_hash = ${actor.keyHash} and k.revoked_at is null
        ),
        touch as (
          update api_keys set last_used_at = now()
           where key_hash = ${actor.keyHash} and revoked_at is null
             and (last_used_at is null or last_used_at < now() - interval '1 minute')
          returning 1
        )`
      : sql`key as (
          select null::uuid as id, o.id as org_id, 'opsroom'::text as application, ${sql.param(ALL_SCOPES)}::text[] as scopes
            from organisations o where o.id = ${actor.orgId}
        )`;
  const auth = scope === null ? sql`auth as (select org_id from key)` : sql`auth as (select org_id from key where ${scope} = any(scopes))`;
  return sql`${key}, ${auth}`;
}

/** Columns every statement answers with, so the caller can tell 401 from 403 from the rest. */
export const actorColumns = sql`exists (select 1 from key) as key_found, exists (select 1 from auth) as allowed`;

export interface ActorOutcome {
  key_found: boolean;
  allowed: boolean;
}

/** Turns the statement's answer about the caller into 401 / 403, in that order. */
export function assertAllowed(row: ActorOutcome, actor: Actor, scope: Scope | null): void {
  if (!row.key_found) {
    if ("orgId" in actor) throw new ApiError("not_found", "organisation not found", { field: "orgId" });
    throw new ApiError("invalid_key", "the API key is unknown or has been revoked");
  }
  if (!row.allowed && scope !== null) {
    throw new ApiError("insufficient_scope", `this call needs the ${scope} scope`, { scope });
  }
}
