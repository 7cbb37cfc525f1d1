import type { SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import { IDEMPOTENCY_WINDOW_HOURS } from "../../../domain/limits.ts";
import type { Database } from "../../client.ts";
import { apiKeys, idempotencyKeys, memberships, oauthTokens, sessions } from "../../schema/index.ts";
import { personCredential, sessionMembership } from "./caller.ts";
import { sql } from "./sql-tag.ts";
import { run } from "./sql.ts";

/** A POST's Idempotency-Key and the fingerprint of the request it came with. */
export interface IdempotencyRequest {
  key: string;
  /** SHA-256 of method, path and body. */
  requestHash: string;
}

const REPLAY_WINDOW = sql.raw(`interval '${IDEMPOTENCY_WINDOW_HOURS} hours'`);

/** `replay`: the stored first response for this key and Idempotency-Key, if still within 24 h. */
export function replayCte(request: IdempotencyRequest | undefined): SQL {
  if (!request)
    return sql`replay as (select null::text as "requestHash", null::jsonb as response, null::bigint as "changeVersion" where false)`;
  return sql`replay as (
    select i.request_hash as "requestHash", i.response, i.change_version as "changeVersion" from ${idempotencyKeys} i
     where i.key_id = (select credential_id from key) and i.idempotency_key = ${request.key}
       and i.created_at > now() - ${REPLAY_WINDOW}
  )`;
}

/**
 * `remembered`: stores the created record as the response to replay, with the changeVersion the
 * write produced; fed by the CTEs `changed` and `bump`. A write that is no record (a multipart
 * upload's start) names the CTE of its row and moves no changeVersion: `{ from, changeVersion: null }`.
 */
export function rememberCte(
  request: IdempotencyRequest | undefined,
  response: SQL,
  written: { from: SQL; changeVersion: SQL } = { from: sql`changed`, changeVersion: sql`(select change_version from bump)` },
): SQL {
  if (!request) return sql`remembered as (select 1 where false)`;
  return sql`remembered as (
    insert into ${idempotencyKeys} (key_id, org_id, idempotency_key, request_hash, status, response, change_version)
    select (select credential_id from key), changed.org_id, ${request.key}, ${request.requestHash}, 201, ${response}, ${written.changeVersion}
      from ${written.from} changed
    returning 1
  )`;
}

/** True for the unique violation of a concurrent request with the same Idempotency-Key. */
export function isIdempotencyRace(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: string; constraint?: string };
  return code === "23505" && constraint === "idempotency_keys_pkey";
}

/** An expired entry still holding the Idempotency-Key is removed before the request is retried (a key's, an application's or a person's). */
export async function forgetExpired(db: Database, actor: Actor, request: IdempotencyRequest): Promise<void> {
  const credential =
    "keyHash" in actor
      ? sql`(select k.id from ${apiKeys} k where k.key_hash = ${actor.keyHash})`
      : "accessTokenHash" in actor
        ? sql`(select t.grant_id from ${oauthTokens} t where t.token_hash = ${actor.accessTokenHash})`
        : "sessionToken" in actor
          ? sessionCredential(actor.sessionToken).id
          : null;
  if (!credential) return;
  await run(
    db,
    sql`delete from ${idempotencyKeys} i
         where i.key_id = ${credential} and i.idempotency_key = ${request.key} and i.created_at <= now() - ${REPLAY_WINDOW}`,
  );
}

/** Drops stored responses older than the replay window (run by the sweep). */
export async function pruneIdempotencyKeys(db: Database): Promise<void> {
  await run(db, sql`delete from ${idempotencyKeys} where created_at <= now() - ${REPLAY_WINDOW}`);
}

/** A signed-in person's credential (caller.ts personCredential) and organisation, from their session. */
export function sessionCredential(sessionToken: string): { id: SQL; orgId: SQL } {
  const of = (column: SQL) =>
    sql`(select ${column} from ${sessions} s join ${memberships} m on ${sessionMembership} where s.token = ${sessionToken} and s.expires_at > now())`;
  return { id: of(personCredential(sql`m.user_id`, sql`m.org_id`)), orgId: of(sql`m.org_id`) };
}
