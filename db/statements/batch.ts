import type { SQL } from "drizzle-orm";
import type { Actor } from "../../domain/actor.ts";
import { IDEMPOTENCY_WINDOW_HOURS } from "../../domain/limits.ts";
import type { Database, Statement } from "../client.ts";
import { apiKeys, events, idempotencyKeys, installations, oauthGrants, oauthTokens, organisations } from "../schema/index.ts";
import { orgWriteLock } from "./engine/caller.ts";
import { sessionCredential } from "./engine/idempotency.ts";
import { BATCH_ID, BATCH_ID_SETTING } from "./engine/outbox.ts";
import { sql } from "./engine/sql-tag.ts";
import { compiledFor } from "./engine/sql.ts";

// The statements POST /v1/batch wraps around its operations' own (services/batch.ts), all sent as
// one transaction: the opening sets the batch's id (every event it commits carries it) and, with
// an Idempotency-Key, looks for a stored answer; the closing stores this one. The operations'
// statements sit between, each ending in opsroom_batch_step (migration 0009, db/statements/engine/sql.ts).

const REPLAY_WINDOW = sql.raw(`interval '${IDEMPOTENCY_WINDOW_HOURS} hours'`);

/** An application's access token's grant and installation (its validity is the operations' own statements' to check). */
const appToken = (hash: string, column: SQL) =>
  sql`(select ${column} from ${oauthTokens} t join ${oauthGrants} g on g.id = t.grant_id join ${installations} i on i.id = g.installation_id
        where t.token_hash = ${hash} and t.kind = 'access' and t.revoked_at is null and g.revoked_at is null and i.uninstalled_at is null)`;

/** Whose Idempotency-Keys a batch's are (a key's id, an application grant's, a person's: db/statements/engine/caller.ts credential_id), and its organisation. */
function credentialOf(actor: Actor): { id: SQL; orgId: SQL } | null {
  if ("keyHash" in actor) {
    const key = (column: SQL) => sql`(select ${column} from ${apiKeys} k where k.key_hash = ${actor.keyHash} and k.revoked_at is null)`;
    return { id: key(sql`k.id`), orgId: key(sql`k.org_id`) };
  }
  if ("accessTokenHash" in actor)
    return { id: appToken(actor.accessTokenHash, sql`g.id`), orgId: appToken(actor.accessTokenHash, sql`i.org_id`) };
  if ("sessionToken" in actor) return sessionCredential(actor.sessionToken);
  return null;
}

/** The operation index opsroom_batch_step reports for a stored answer found by the opening statement. */
export const STORED_ANSWER = -1;

export interface BatchIdempotency {
  key: string;
  requestHash: string;
}

const orgOf = (actor: Actor) => ("orgId" in actor ? sql`${actor.orgId}::uuid` : credentialOf(actor)!.orgId);

/**
 * The statements that open a batch's transaction. First the batch's id, for every event it commits,
 * and the organisation's write lock, which every write takes first (db/statements/engine/caller.ts), so
 * the batch and single writes queue on it rather than deadlock. With an Idempotency-Key: an
 * expired entry for the key is dropped; a stored answer aborts the transaction (reported as
 * STORED_ANSWER); otherwise the key is claimed, so a concurrent request with it waits on the claim
 * and, once this batch commits, fails on it, runs again, and finds this batch's answer.
 */
export function openBatch(db: Database, actor: Actor, batchId: string, idempotency: BatchIdempotency | undefined): Statement[] {
  const opening = compiledFor(
    db,
    sql`select set_config(${BATCH_ID_SETTING}, ${batchId}, true) as batch_id,
      (select ${orgWriteLock(sql`o.id`)} from ${organisations} o where o.id = ${orgOf(actor)}) as locked`,
  );
  const credential = credentialOf(actor);
  if (!idempotency || !credential) return [opening];
  const key = sql`i.key_id = ${credential.id} and i.idempotency_key = ${idempotency.key}`;
  return [
    opening,
    compiledFor(db, sql`delete from ${idempotencyKeys} i where ${key} and i.created_at <= now() - ${REPLAY_WINDOW}`),
    compiledFor(
      db,
      sql`select bool_and(opsroom_batch_step(false, ${STORED_ANSWER}::int,
        json_build_object('requestHash', i.request_hash, 'response', i.response, 'changeVersion', i.change_version), null)) as replay
      from ${idempotencyKeys} i where ${key}`,
    ),
    compiledFor(
      db,
      sql`insert into ${idempotencyKeys} (key_id, org_id, idempotency_key, request_hash, status, response)
      select c.id, c.org_id, ${idempotency.key}, ${idempotency.requestHash}, 200, '{}'::jsonb
        from (select ${credential.id} as id, ${credential.orgId} as org_id) c where c.id is not null`,
    ),
  ];
}

/**
 * Stores the batch's answer on its claimed Idempotency-Key: the operations' answers, gathered by
 * opsroom_batch_step, and the changeVersion the batch ended at.
 */
export function rememberBatch(db: Database, actor: Actor, idempotency: BatchIdempotency): Statement | null {
  const credential = credentialOf(actor);
  if (!credential) return null;
  return compiledFor(
    db,
    sql`update ${idempotencyKeys} i
       set response = jsonb_build_object(
             'batchId', (select e.batch_id from ${events} e where e.org_id = i.org_id and e.change_version = o.change_version
                            and e.batch_id = ${BATCH_ID}),
             'results', ('[' || coalesce(nullif(current_setting('opsroom.batch_answers', true), ''), '') || ']')::jsonb),
           change_version = o.change_version
      from ${organisations} o
     where o.id = i.org_id and i.key_id = ${credential.id} and i.idempotency_key = ${idempotency.key}`,
  );
}

/** What opsroom_batch_step raised: the operation it refused and that operation's outcome row. */
export interface BatchRefusal {
  operation: number;
  outcome: Record<string, unknown>;
}

/** The refusal an error of the batch's transaction carries, or null for any other error. */
export function batchRefusalOf(error: unknown): BatchRefusal | null {
  const { code, message, detail } = (error ?? {}) as { code?: string; message?: string; detail?: string };
  if (code !== "P0001" || !message?.includes("opsroom_batch_refused") || typeof detail !== "string") return null;
  return JSON.parse(detail) as BatchRefusal;
}

/** A stored batch answer, as the opening statement found it. */
export interface StoredBatch {
  requestHash: string;
  response: { batchId: string | null; results: { created: boolean; data: Record<string, unknown> }[] };
  changeVersion: number | string | null;
}
