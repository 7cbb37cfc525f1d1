import { sql } from "drizzle-orm";
import { DEFAULT_RATE_LIMIT } from "../../domain/limits.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { run } from "./sql.ts";

// API keys are stored as their SHA-256 hash and a display prefix only; the key itself never
// reaches the database. Keys are not an event resource, so these writes do not move changeVersion.

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
  const [row] = await run<{ rate_limit: number }>(
    db,
    sql`insert into api_keys (id, org_id, application, key_hash, prefix, scopes, rate_limit)
        values (${key.id}, ${key.orgId}, ${key.application}, ${key.keyHash}, ${key.prefix}, ${sql.param(key.scopes)}, ${key.rateLimit ?? DEFAULT_RATE_LIMIT})
        returning rate_limit`,
  );
  return { rateLimit: row!.rate_limit };
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
          from api_keys where org_id = ${orgId}::uuid order by created_at, id`,
  );
}

/**
 * Revokes at once; answers the key's organisation, or null when no such key exists. Revoking
 * twice keeps the first time.
 */
export async function revokeApiKey(db: Database, keyId: string): Promise<{ orgId: string } | null> {
  const [row] = await run<{ org_id: string }>(db, sql`update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${keyId}::uuid returning org_id`);
  return row ? { orgId: row.org_id } : null;
}

/** Keys revoked in the last `seconds`, by organisation: what the sweep repeats to the rooms. */
export async function recentlyRevokedKeys(db: Database, seconds: number): Promise<Map<string, string[]>> {
  const rows = await run<{ org_id: string; ids: string[] }>(
    db,
    sql`select org_id, array_agg(id order by id) as ids from api_keys
         where revoked_at > now() - make_interval(secs => ${seconds}) group by org_id`,
  );
  return new Map(rows.map((row) => [row.org_id, row.ids]));
}

/** A key that is not revoked, by id, with its organisation, scopes and hash (a realtime token names one). */
export async function findActiveKey(db: Database, keyId: string): Promise<{ orgId: string; keyId: string; keyHash: string; scopes: Scope[] } | null> {
  const [row] = await run<{ orgId: string; keyId: string; keyHash: string; scopes: Scope[] }>(
    db,
    sql`select org_id as "orgId", id as "keyId", key_hash as "keyHash", scopes from api_keys where id = ${keyId}::uuid and revoked_at is null`,
  );
  return row ?? null;
}

/** Whether the key (its id, organisation and hash) is stored and not revoked. */
export async function isLiveKey(db: Database, key: { id: string; orgId: string; keyHash: string }): Promise<boolean> {
  const rows = await run(db, sql`select 1 from api_keys where id = ${key.id}::uuid and org_id = ${key.orgId}::uuid and key_hash = ${key.keyHash} and revoked_at is null`);
  return rows.length === 1;
}

/** A live key's rate limit, by its hash; null when it is unknown or revoked. */
export async function rateLimitOf(db: Database, keyHash: string): Promise<number | null> {
  const [row] = await run<{ rate_limit: number }>(db, sql`select rate_limit from api_keys where key_hash = ${keyHash} and revoked_at is null`);
  return row?.rate_limit ?? null;
}
