import type { Actor } from "../../domain/actor.ts";
import { attachmentScopes, type AttachmentParent } from "../../domain/attachments.ts";
import type { Scope } from "../../domain/scopes.ts";
import type { Database } from "../client.ts";
import { attachmentUploadParts, attachmentUploads } from "../schema/index.ts";
import { attachmentResources, column, quotaBytes, reservedBytes, TABLES, usedBytes, type AttachmentRecord } from "./attachments.ts";
import { CALLER_ORG, callerColumns, callerCtes, callerOf, type CallerRow } from "./engine/caller.ts";
import { systemActor } from "./engine/events.ts";
import { forgetExpired, isIdempotencyRace, rememberCte, replayCte, type IdempotencyRequest } from "./engine/idempotency.ts";
import { inResponseOrder } from "./engine/projection.ts";
import { sql } from "./engine/sql-tag.ts";
import { run, runOne } from "./engine/sql.ts";

// Multipart uploads under way (docs/attachments.md "Large files"): not records (no events, no
// changeVersion), each under a record of its organisation and read and written with that record's
// scopes. The parts that arrived whole are kept with their SHA-256 and R2's etag, to list (so a
// client resumes) and to complete with. The attachment is recorded when the upload completes
// (db/statements/attachments.ts createAttachment); the sweep aborts uploads left 24 hours.

/** An upload as the API answers it (its parts apart). */
export interface UploadRow {
  id: string;
  parentId: string;
  name: string;
  size: number;
  sha256: string;
  partSize: number;
  createdAt: string;
  updatedAt: string;
}

/** What only the Worker sees of an upload: where its bytes go in R2. */
export interface UploadStorage {
  objectKey: string;
  r2UploadId: string;
}

export interface UploadedPart {
  partNumber: number;
  size: number;
  sha256: string;
}

const uploadJson = (parent: AttachmentParent, alias: string) => {
  const u = sql.raw(alias);
  const at = (name: string) => sql`to_char(${u}.${sql.raw(name)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return sql`json_build_object('id', ${u}.id, 'parentId', ${u}.${column(parent)}, 'name', ${u}.name, 'size', ${u}.size,
     'sha256', ${u}.sha256, 'partSize', ${u}.part_size, 'objectKey', ${u}.object_key, 'r2UploadId', ${u}.r2_upload_id,
     'createdAt', ${at("created_at")}, 'updatedAt', ${at("updated_at")})`;
};

type Stored = UploadRow & UploadStorage;
const numbers = (row: Stored | null): Stored | null => row && { ...row, size: Number(row.size), partSize: Number(row.partSize) };

/** The parts of upload `id` that arrived, in order, as JSON. */
const partsJson = (id: string) =>
  sql`coalesce((select json_agg(json_build_object('partNumber', p.part_number, 'size', p.size, 'sha256', p.sha256, 'etag', p.etag)
                                  order by p.part_number)
                  from ${attachmentUploadParts} p where p.upload_id = ${id}::uuid), '[]'::json)`;

/** The upload `id` under this record of the caller's organisation. */
const theUpload = (parent: AttachmentParent, parentId: string, id: string) =>
  sql`u.org_id = ${CALLER_ORG} and u.id = ${id}::uuid and u.${column(parent)} = ${parentId}::uuid`;

/** A new upload: the fields the API answers, made before they are stored, and where its bytes go. */
export type NewUpload = Omit<UploadRow, "createdAt" | "updatedAt"> & UploadStorage;

/** A stored first response to the request's Idempotency-Key, as the statement answers it. */
type ReplayRow = { requestHash: string; response: Stored; changeVersion: null } | null;
const replayOf = (replay: ReplayRow) =>
  replay && { requestHash: replay.requestHash, record: numbers(replay.response)!, changeVersion: null };

/** Runs a statement that remembers its answer again when a concurrent request with its Idempotency-Key won: it then finds that answer. */
async function rememberingOnce<T>(db: Database, actor: Actor, idempotency: IdempotencyRequest | undefined, statement: () => Promise<T>) {
  try {
    return await statement();
  } catch (error) {
    if (!idempotency || !isIdempotencyRace(error)) throw error;
    await forgetExpired(db, actor, idempotency);
    return statement();
  }
}

/**
 * Records an upload R2 has begun, if the caller still may, the record is still there, and the file
 * still fits the quota with the uploads already under way (the organisation's write lock first:
 * concurrent starts see each other); with an Idempotency-Key, remembered as the answer to replay.
 * Answers the row, or why not, or the first response to the key (and records nothing).
 */
export async function startUpload(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  values: NewUpload,
  idempotency?: IdempotencyRequest,
) {
  const row = await rememberingOnce(db, actor, idempotency, () =>
    runOne<CallerRow & { parent_found: boolean; fits: boolean; upload: Stored | null; replay: ReplayRow }>(
      db,
      sql`with ${callerCtes(actor, attachmentScopes(parent).manage, { writes: true })},
        ${replayCte(idempotency)},
        found as (select exists (select 1 from ${TABLES[parent]} p where p.org_id = ${CALLER_ORG} and p.id = ${values.parentId}::uuid) as yes),
        fits as (select ${usedBytes} + ${reservedBytes} + ${values.size}::bigint <= ${quotaBytes} as yes),
        made as (
          insert into ${attachmentUploads} as u (id, org_id, ${column(parent)}, name, size, sha256, part_size, object_key, r2_upload_id, uploader)
          select ${values.id}::uuid, a.org_id, ${values.parentId}::uuid, ${values.name}, ${values.size}, ${values.sha256}, ${values.partSize},
                 ${values.objectKey}, ${values.r2UploadId}, coalesce((select actor from key), ${systemActor})
            from auth a where (select yes from found) and (select yes from fits) and not exists (select 1 from replay)
          returning u.*),
        ${rememberCte(idempotency, uploadJson(parent, "changed"), { from: sql`made`, changeVersion: sql`null::bigint` })}
        select ${callerColumns}, (select yes from found) as parent_found, coalesce((select yes from fits), false) as fits,
               (select ${uploadJson(parent, "made")} from made) as upload, (select row_to_json(replay) from replay) as replay`,
    ),
  );
  return {
    caller: callerOf(row),
    parentFound: row.parent_found,
    fits: row.fits,
    upload: numbers(row.upload),
    replay: replayOf(row.replay),
  };
}

/** The upload and the parts that arrived, read with `scope` (the record's read or manage scope). */
export async function uploadOf(db: Database, actor: Actor, parent: AttachmentParent, parentId: string, id: string, scope: Scope) {
  const row = await runOne<CallerRow & { upload: Stored | null; parts: (UploadedPart & { etag: string })[] | null }>(
    db,
    sql`with ${callerCtes(actor, scope)}
        select ${callerColumns},
               (select ${uploadJson(parent, "u")} from ${attachmentUploads} u where ${theUpload(parent, parentId, id)}) as upload,
               ${partsJson(id)} as parts`,
  );
  return { caller: callerOf(row), upload: numbers(row.upload), parts: row.upload ? (row.parts ?? []) : [] };
}

/** A part that arrived whole and checked: kept (a resent part replaces the one before), and the upload touched. */
export async function recordPart(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  parentId: string,
  id: string,
  part: UploadedPart & { etag: string },
) {
  const row = await runOne<CallerRow & { recorded: boolean }>(
    db,
    sql`with ${callerCtes(actor, attachmentScopes(parent).manage)},
        touched as (update ${attachmentUploads} u set updated_at = now() where ${theUpload(parent, parentId, id)} returning u.id, u.org_id),
        kept as (
          insert into ${attachmentUploadParts} (upload_id, org_id, part_number, size, sha256, etag)
          select t.id, t.org_id, ${part.partNumber}, ${part.size}, ${part.sha256}, ${part.etag} from touched t
          on conflict (upload_id, part_number) do update set size = excluded.size, sha256 = excluded.sha256, etag = excluded.etag,
                                                              created_at = now()
          returning 1)
        select ${callerColumns}, exists (select 1 from kept) as recorded`,
  );
  return { caller: callerOf(row), recorded: row.recorded };
}

/**
 * Takes the upload to complete it, if every one of its parts has arrived: its row (and its parts)
 * deleted in this statement, so no second call completes it too. Else answers the parts missing
 * (the first 100) and takes nothing. With an Idempotency-Key already answered, takes nothing and
 * answers that first response (the attachment a lost 201 carried).
 */
export async function claimUpload(
  db: Database,
  actor: Actor,
  parent: AttachmentParent,
  parentId: string,
  id: string,
  idempotency?: IdempotencyRequest,
) {
  const row = await runOne<
    CallerRow & {
      found: boolean;
      missing: number[] | null;
      upload: Stored | null;
      parts: (UploadedPart & { etag: string })[] | null;
      replay: { requestHash: string; response: AttachmentRecord; changeVersion: string | number | null } | null;
    }
  >(
    db,
    sql`with ${callerCtes(actor, attachmentScopes(parent).manage)},
        ${replayCte(idempotency)},
        target as (select u.* from ${attachmentUploads} u where ${theUpload(parent, parentId, id)} and not exists (select 1 from replay)),
        missing as (
          select array(select n from target t, generate_series(1, ceil(t.size::numeric / t.part_size)::int) n
                        where not exists (select 1 from ${attachmentUploadParts} p where p.upload_id = t.id and p.part_number = n)
                        order by n limit 100) as numbers),
        parts as (select ${partsJson(id)} as list),
        taken as (delete from ${attachmentUploads} u using target t
                   where u.id = t.id and cardinality((select numbers from missing)) = 0 returning u.*)
        select ${callerColumns}, exists (select 1 from target) as found, (select numbers from missing) as missing,
               (select ${uploadJson(parent, "taken")} from taken) as upload, (select list from parts) as parts,
               (select row_to_json(replay) from replay) as replay`,
  );
  const replay = row.replay;
  return {
    caller: callerOf(row),
    // The attachment the first complete with this Idempotency-Key answered (nothing taken).
    replay: replay && {
      requestHash: replay.requestHash,
      record: inResponseOrder(attachmentResources[parent], replay.response),
      changeVersion: replay.changeVersion === null ? null : Number(replay.changeVersion),
    },
    found: row.found,
    missing: (row.missing ?? []).map(Number),
    upload: numbers(row.upload),
    parts: row.parts ?? [],
  };
}

/** An upload's abort: its row and parts deleted; answers what it was (and where its bytes are, to abort in R2). */
export async function abortUpload(db: Database, actor: Actor, parent: AttachmentParent, parentId: string, id: string) {
  const row = await runOne<CallerRow & { upload: Stored | null }>(
    db,
    sql`with ${callerCtes(actor, attachmentScopes(parent).manage)},
        gone as (delete from ${attachmentUploads} u where ${theUpload(parent, parentId, id)} returning u.*)
        select ${callerColumns}, (select ${uploadJson(parent, "gone")} from gone) as upload`,
  );
  return { caller: callerOf(row), upload: numbers(row.upload) };
}

/** Uploads nobody has touched for `seconds` (the oldest first, at most `limit`), taken: their rows deleted, their R2 uploads answered to abort. */
export async function takeAbandonedUploads(db: Database, seconds: number, limit: number): Promise<UploadStorage[]> {
  const rows = await run<{ object_key: string; r2_upload_id: string }>(
    db,
    sql`delete from ${attachmentUploads} where id in (
          select id from ${attachmentUploads} where updated_at < now() - make_interval(secs => ${seconds}) order by updated_at limit ${limit})
        returning object_key, r2_upload_id`,
  );
  return rows.map((r) => ({ objectKey: r.object_key, r2UploadId: r.r2_upload_id }));
}
