import type { SQL } from "drizzle-orm";
import type { Actor } from "../../../domain/actor.ts";
import type { OpsEvent } from "../../../domain/events.ts";
import { uuidv7 } from "../../../domain/ids.ts";
import type { Database } from "../../client.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, orgLockStatement, type CallerOutcome, type CallerRow } from "./caller.ts";
import { forgetExpired, isIdempotencyRace, rememberCte, replayCte, type IdempotencyRequest } from "./idempotency.ts";
import { bumpAndEvent, committedEvent, committedOf, type Committed } from "./outbox.ts";
import { inResponseOrder, projection } from "./projection.ts";
import type { RecordOf, Resource, WritableOf } from "./resource.ts";
import type { CheckedField } from "./rules.ts";
import { sql } from "./sql-tag.ts";
import { runWrite } from "./sql.ts";
import { changesOf, externalIdFree, failed, referenceCte, referencesHold, type Reference } from "./write-ctes.ts";

export interface CreateOptions<R extends Resource> {
  values: WritableOf<R>;
  references: Reference[];
  /** Replays the first response instead of creating twice. */
  idempotency?: IdempotencyRequest | undefined;
  /** What a replay answers, over the CTE `changed`; default the public record. */
  remember?: SQL;
  /** The checks read rows other writes change: see every write before this one (WriteStatement.lockFirst). */
  fresh?: boolean;
  /** CTEs appended to the statement after the change (auditCtes: the audit entry recording it, over `changed`). */
  audit?: SQL | undefined;
}

export interface CreateOutcome<Json> {
  caller: CallerOutcome;
  parentFound: boolean;
  failedReferences: CheckedField[];
  /** The record and its event, when the insert happened. */
  created: ({ record: Json } & Committed) | null;
  /** A stored first response for this Idempotency-Key, and the hash of the request that made it. */
  replay: { requestHash: string; record: Json; changeVersion: number | null } | null;
}

/**
 * Inserts one record with its references checked, the changeVersion bump and the event, in one
 * statement; or finds the stored first response to a repeated Idempotency-Key.
 */
export async function createRecord<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  options: CreateOptions<R>,
): Promise<CreateOutcome<RecordOf<R>>> {
  try {
    return await createOnce(db, actor, resource, options);
  } catch (error) {
    // Two requests with one Idempotency-Key at once: the loser's whole statement rolled back on
    // the key's primary key. Run again, and it finds the winner's response to replay.
    if (!options.idempotency || !isIdempotencyRace(error)) throw error;
    await forgetExpired(db, actor, options.idempotency);
    return createOnce(db, actor, resource, options);
  }
}

/**
 * The new record's JSON, built once (a CTE referenced more than once is computed once): the event's
 * data, the answer and the remembered response (unless the resource remembers more: a webhook's
 * answer carries its secret) are the same JSON. Built in each place, it was a
 * fifth of a task create's statement, and Postgres parsed and planned it, derived fields and all,
 * twice over (bench/results/README.md "Postgres time per call").
 */
const CREATED_VIEW = (resource: Resource) => sql`created_view as (select ${projection(resource, "changed")} as json from changed)`;
const CREATED_JSON = sql`(select v.json from created_view v)`;

async function createOnce<R extends Resource>(
  db: Database,
  actor: Actor,
  resource: R,
  options: CreateOptions<R>,
): Promise<CreateOutcome<RecordOf<R>>> {
  const changes = changesOf(resource, options.values as Record<string, unknown>);
  const references = [...options.references, ...externalIdFree(resource, (options.values as { externalId?: unknown }).externalId)];
  // A record created under its parent (POST /v1/projects/{id}/milestones): the parent must exist.
  const { parent } = resource;
  const parentFound = parent
    ? sql`exists (select 1 from ${parent.table} p where p.org_id = ${CALLER_ORG} and p.id = ${(options.values as Record<string, unknown>)[parent.field]}::uuid)`
    : sql`true`;
  type Json = RecordOf<R>;
  const row = await runWrite<
    CallerRow & {
      parentFound: boolean | null;
      refs: Record<string, boolean> | null;
      record: Json | null;
      event: OpsEvent | null;
      cascaded: OpsEvent[] | null;
      replay: { requestHash: string; response: Json; changeVersion: string | number | null } | null;
    }
  >(db, {
    ctes: sql`${callerCtes(actor, resource.manageScope, { writes: true, audited: options.audit !== undefined })},
        ${referenceCte(references, sql`auth`)},
        ${replayCte(options.idempotency)},
        changed as (
          insert into ${resource.table} (id, org_id, ${sql.join(
            changes.map((c) => sql.identifier(c.column.column)),
            sql`, `,
          )})
          select ${db.batch?.newId ?? uuidv7()}::uuid, auth.org_id, ${sql.join(
            changes.map((c) => c.value),
            sql`, `,
          )}
            from auth, refs
           where ${parentFound} and ${referencesHold(references)} and not exists (select 1 from replay)
          returning *
        ),
        ${CREATED_VIEW(resource)},
        ${bumpAndEvent(resource, "created", sql`null::jsonb`, [], CREATED_JSON)},
        ${rememberCte(options.idempotency, options.remember ?? CREATED_JSON)}${options.audit ? sql`, ${options.audit}` : sql``}`,
    columns: sql`${callerColumns},
               (select ${parentFound} from auth) as "parentFound",
               (select row_to_json(refs) from refs) as refs,
               ${CREATED_JSON} as record,
               ${committedEvent},
               (select row_to_json(replay) from replay) as replay`,
    succeeded: sql`o.record is not null`,
    answer: sql`o.record`,
    created: sql`true`,
    lockFirst: options.fresh ? orgLockStatement(actor) : undefined,
  });
  return {
    caller: callerOf(row),
    parentFound: row.parentFound !== false,
    failedReferences: failed(
      references.map((r) => r.field),
      row.refs,
    ),
    created: row.record ? { record: row.record, ...committedOf(row) } : null,
    replay: row.replay
      ? {
          requestHash: row.replay.requestHash,
          record: inResponseOrder(resource, row.replay.response),
          changeVersion: row.replay.changeVersion === null ? null : Number(row.replay.changeVersion),
        }
      : null,
  };
}
