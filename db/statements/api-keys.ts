import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { NO_REQUEST, type AuditRequest } from "../../domain/audit.ts";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { apiKeys } from "../schema/index.ts";
import { auditCtes, auditTarget, SYSTEM_ACTOR_JSON } from "./engine/audit.ts";
import { CALLER_ORG } from "./engine/caller.ts";
import { iso, MANAGE_SETTINGS, personJson, withCaller, type SettingsOutcome } from "./engine/settings-caller.ts";
import { sql } from "./engine/sql-tag.ts";
import { run } from "./engine/sql.ts";

// API keys are stored as their SHA-256 hash and a display prefix only; the key itself never
// reaches the database. Keys are not an event resource, so these writes do not move changeVersion.
// The operator's CLI makes, lists and revokes keys of any organisation; people make, list, revoke
// and replace their organisation's keys in the settings area (owners and admins, checked in the
// statement). One revocation (`revokedKey`) serves the three ways a key ends.

/**
 * `revoked`: the key `keyId` revoked now, if it is live (and of the organisation `orgId`, when
 * given), as its row was; no row otherwise. A key revoked already is left as it is: its first
 * revocation's time stays.
 */
function revokedKey(keyId: string, orgId: SQL | null): SQL {
  return sql`revoked as (
        update ${apiKeys} k set revoked_at = now()
         where k.id = ${keyId}::uuid and k.revoked_at is null${orgId ? sql` and k.org_id = ${orgId}` : sql``}
        returning k.*
      )`;
}

/** The audit entry of a key's creation, revocation or replacement, over the key's row `k` in `from`. */
const keyAudit = (action: "api_key.created" | "api_key.revoked" | "api_key.replaced", from: SQL, changes: SQL) => ({
  action,
  source: sql`select k.org_id, ${auditTarget("api_key", sql`k.id`, sql`k.application`)} as target, ${changes} as changes from ${from}`,
});
const createdChanges = sql`jsonb_build_object('scopes', jsonb_build_object('from', null, 'to', to_jsonb(k.scopes)),
  'rateLimit', jsonb_build_object('from', null, 'to', k.rate_limit))`;

export interface StoredApiKey {
  id: string;
  orgId: string;
  application: string;
  keyHash: string;
  prefix: string;
  /** Already expanded (a .manage scope with its .read): stored as held. */
  scopes: Scope[];
  rateLimit?: number | undefined;
}

/** Stores a key; answers its rate limit (the default when none was given). */
export async function insertApiKey(db: Database, key: StoredApiKey): Promise<{ rateLimit: number }> {
  const [row] = await run<{ rateLimit: number }>(
    db,
    sql`with inserted as (
          insert into ${apiKeys} (id, org_id, application, key_hash, prefix, scopes, rate_limit)
          values (${key.id}, ${key.orgId}, ${key.application}, ${key.keyHash}, ${key.prefix}, ${sql.param(key.scopes)}, ${key.rateLimit ?? DEFAULT_RATE_LIMIT})
          returning *
        ), ${auditCtes({ ...keyAudit("api_key.created", sql`inserted k`, createdChanges), actor: SYSTEM_ACTOR_JSON }, NO_REQUEST)}
        select rate_limit as "rateLimit" from inserted`,
  );
  return { rateLimit: row!.rateLimit };
}

export interface ApiKeySummary {
  id: string;
  prefix: string;
  application: string;
  scopes: Scope[];
  rateLimit: number;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function listApiKeys(db: Database, orgId: string): Promise<ApiKeySummary[]> {
  return run<ApiKeySummary>(
    db,
    sql`select id, prefix, application, scopes, rate_limit as "rateLimit",
               to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
               to_char(last_used_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "lastUsedAt",
               to_char(revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "revokedAt"
          from ${apiKeys} where org_id = ${orgId}::uuid order by created_at, id`,
  );
}

/**
 * Revokes at once (the CLI); answers the key's organisation, or null when no such key exists.
 * Revoking twice keeps the first time and answers the same.
 */
export async function revokeApiKey(db: Database, keyId: string): Promise<{ orgId: string } | null> {
  // The second branch reads api_keys as it was before this statement: a key revoked before it.
  const [row] = await run<{ orgId: string }>(
    db,
    sql`with ${revokedKey(keyId, null)}, ${auditCtes({ ...keyAudit("api_key.revoked", sql`revoked k`, sql`null::jsonb`), actor: SYSTEM_ACTOR_JSON }, NO_REQUEST)}
        select org_id as "orgId" from revoked
        union all
        select org_id from ${apiKeys} where id = ${keyId}::uuid and revoked_at is not null`,
  );
  return row ? { orgId: row.orgId } : null;
}

/** Keys revoked in the last `seconds`, by organisation: what the sweep repeats to the rooms. */
export async function recentlyRevokedKeys(db: Database, seconds: number): Promise<Map<string, string[]>> {
  const rows = await run<{ orgId: string; ids: string[] }>(
    db,
    sql`select org_id as "orgId", array_agg(id order by id) as ids from ${apiKeys}
         where revoked_at > now() - make_interval(secs => ${seconds}) group by org_id`,
  );
  return new Map(rows.map((row) => [row.orgId, row.ids]));
}

/** A key that is not revoked, by id, with its organisation, scopes and hash (a realtime token names one). */
export async function findActiveKey(
  db: Database,
  keyId: string,
): Promise<{ orgId: string; keyId: string; keyHash: string; scopes: Scope[] } | null> {
  const [row] = await run<{ orgId: string; keyId: string; keyHash: string; scopes: Scope[] }>(
    db,
    sql`select org_id as "orgId", id as "keyId", key_hash as "keyHash", scopes from ${apiKeys} where id = ${keyId}::uuid and revoked_at is null`,
  );
  return row ?? null;
}

/** Whether the key (its id, organisation and hash) is stored and not revoked. */
export async function isLiveKey(db: Database, key: { id: string; orgId: string; keyHash: string }): Promise<boolean> {
  const rows = await run(
    db,
    sql`select 1 from ${apiKeys} where id = ${key.id}::uuid and org_id = ${key.orgId}::uuid and key_hash = ${key.keyHash} and revoked_at is null`,
  );
  return rows.length === 1;
}

/** A live key's rate limit, by its hash; null when it is unknown or revoked. */
export async function rateLimitOf(db: Database, keyHash: string): Promise<number | null> {
  const [row] = await run<{ rateLimit: number }>(
    db,
    sql`select rate_limit as "rateLimit" from ${apiKeys} where key_hash = ${keyHash} and revoked_at is null`,
  );
  return row?.rateLimit ?? null;
}

// ---------------------------------------------------------------------------------------------
// The settings area: a person's organisation's keys

export interface ApiKeyRecord {
  id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  rateLimit: number;
  createdBy: { id: string; name: string } | null;
  createdAt: string;
  lastUsedAt: string | null;
}

const apiKeyJson = sql`json_build_object('id', k.id, 'name', k.application, 'prefix', k.prefix, 'scopes', k.scopes, 'rateLimit', k.rate_limit,
    'createdBy', ${personJson("k.created_by_user_id")}, 'createdAt', ${iso("k.created_at")}, 'lastUsedAt', ${iso("k.last_used_at")})`;

export async function listOrganisationKeys(db: Database, actor: Actor): Promise<SettingsOutcome<{ keys: ApiKeyRecord[] }>> {
  const { caller, role, userId, row } = await withCaller<{ keys: ApiKeyRecord[] | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    null,
    sql`(select json_agg(${apiKeyJson} order by k.created_at, k.id) from ${apiKeys} k where k.org_id = ${CALLER_ORG} and k.revoked_at is null) as keys`,
  );
  return { caller, role, userId, keys: row.keys ?? [] };
}

export interface NewKey {
  id: string;
  name: string;
  keyHash: string;
  prefix: string;
  scopes: Scope[];
  rateLimit?: number | undefined;
}

export async function createOrganisationKey(
  db: Database,
  actor: Actor,
  key: NewKey,
  request: AuditRequest,
): Promise<SettingsOutcome<{ key: ApiKeyRecord | null }>> {
  const { caller, role, userId, row } = await withCaller<{ key: ApiKeyRecord | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`inserted as (
          insert into ${apiKeys} (id, org_id, application, key_hash, prefix, scopes, rate_limit, created_by_user_id)
          select ${key.id}::uuid, org_id, ${key.name}, ${key.keyHash}, ${key.prefix}, ${sql.param(key.scopes)}, ${key.rateLimit ?? DEFAULT_RATE_LIMIT}, (select user_id from key)
            from auth
          returning *
        ),
        ${auditCtes(keyAudit("api_key.created", sql`inserted k`, createdChanges), request)}`,
    sql`(select ${apiKeyJson} from inserted k) as key`,
  );
  return { caller, role, userId, key: row.key };
}

/** Revokes a live key of the caller's organisation; null when there is none with that id. */
export async function revokeOrganisationKey(
  db: Database,
  actor: Actor,
  keyId: string,
  request: AuditRequest,
): Promise<SettingsOutcome<{ revoked: { id: string; orgId: string } | null }>> {
  const { caller, role, userId, row } = await withCaller<{ revoked: { id: string; orgId: string } | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`${revokedKey(keyId, CALLER_ORG)}, ${auditCtes(keyAudit("api_key.revoked", sql`revoked k`, sql`null::jsonb`), request)}`,
    sql`(select json_build_object('id', id, 'orgId', org_id) from revoked) as revoked`,
  );
  return { caller, role, userId, revoked: row.revoked };
}

/**
 * Replaces a live key: a new key with the same name, scopes and rate limit, created by the caller,
 * and the old one revoked, in one statement. Null when there is no live key with that id.
 */
export async function replaceOrganisationKey(
  db: Database,
  actor: Actor,
  oldKeyId: string,
  key: Omit<NewKey, "name" | "scopes" | "rateLimit">,
  request: AuditRequest,
): Promise<SettingsOutcome<{ key: ApiKeyRecord | null; orgId: string | null }>> {
  const { caller, role, userId, row } = await withCaller<{ key: ApiKeyRecord | null; orgId: string | null }>(
    db,
    actor,
    MANAGE_SETTINGS,
    sql`${revokedKey(oldKeyId, CALLER_ORG)},
        inserted as (
          insert into ${apiKeys} (id, org_id, application, key_hash, prefix, scopes, rate_limit, created_by_user_id)
          select ${key.id}::uuid, org_id, application, ${key.keyHash}, ${key.prefix}, scopes, rate_limit, (select user_id from key)
            from revoked
          returning *
        ),
        ${auditCtes(keyAudit("api_key.replaced", sql`revoked k join inserted n on true`, sql`jsonb_build_object('replacedBy', jsonb_build_object('from', null, 'to', n.id))`), request)}`,
    sql`(select ${apiKeyJson} from inserted k) as key, (select org_id from revoked) as "orgId"`,
  );
  return { caller, role, userId, key: row.key, orgId: row.orgId };
}
