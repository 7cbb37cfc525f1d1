import { displayPrefix, generateApiKey, hashApiKey } from "../../functions/lib/api-keys.ts";
import { uuidv7 } from "../../functions/lib/ids.ts";
import type { Scope } from "../../functions/lib/scopes.ts";
import type { Database } from "../client.ts";

// Administration that happens outside the API (the CLI, test fixtures): organisations and keys.
// Neither is an event resource, so these writes do not move changeVersion.

export interface Organisation {
  id: string;
  name: string;
}

export async function createOrganisation(db: Database, input: { name: string }): Promise<Organisation> {
  const { rows } = await db.query<Organisation>(
    "insert into organisations (id, name) values ($1, $2) returning id, name",
    [uuidv7(), input.name],
  );
  return rows[0]!;
}

export async function findOrganisation(db: Database, id: string): Promise<Organisation | undefined> {
  const { rows } = await db.query<Organisation>("select id, name from organisations where id = $1", [id]);
  return rows[0];
}

export interface CreatedApiKey {
  id: string;
  /** The key itself: shown once, never stored. */
  key: string;
  prefix: string;
  orgId: string;
  application: string;
  scopes: Scope[];
  rateLimit: number;
}

/** `scopes` must already be expanded (see expandScopes): they are stored as held. */
export async function createApiKey(
  db: Database,
  input: { orgId: string; application: string; scopes: Scope[]; rateLimit?: number },
): Promise<CreatedApiKey> {
  const key = generateApiKey();
  const { rows } = await db.query<{ id: string; rate_limit: number }>(
    `insert into api_keys (id, org_id, application, key_hash, prefix, scopes, rate_limit)
     values ($1, $2, $3, $4, $5, $6, coalesce($7, 600)) returning id, rate_limit`,
    [uuidv7(), input.orgId, input.application, await hashApiKey(key), displayPrefix(key), input.scopes, input.rateLimit ?? null],
  );
  const row = rows[0]!;
  return {
    id: row.id,
    key,
    prefix: displayPrefix(key),
    orgId: input.orgId,
    application: input.application,
    scopes: input.scopes,
    rateLimit: row.rate_limit,
  };
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

export async function listApiKeys(db: Database, orgId: string): Promise<ApiKeySummary[]> {
  const { rows } = await db.query<ApiKeySummary>(
    `select id, prefix, application, scopes, rate_limit as "rateLimit",
            to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "createdAt",
            to_char(last_used_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "lastUsedAt",
            to_char(revoked_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "revokedAt"
       from api_keys where org_id = $1 order by created_at, id`,
    [orgId],
  );
  return rows;
}

/** Revokes at once; returns false when no such key exists. Revoking twice keeps the first time. */
export async function revokeApiKey(db: Database, keyId: string): Promise<boolean> {
  const { rows } = await db.query(
    "update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning id",
    [keyId],
  );
  return rows.length > 0;
}
