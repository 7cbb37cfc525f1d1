import * as uploads from "../db/statements/attachment-uploads.ts";
import * as statements from "../db/statements/attachments.ts";
import {
  attachmentScopes,
  MAX_PARTS,
  objectKeyOf,
  partCountOf,
  partLengthOf,
  UPLOAD_ABANDONED_SECONDS,
  type AttachmentParent,
} from "../domain/attachments.ts";
import { detectContentType } from "../domain/attachments.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import { RESOURCES } from "../domain/resources.ts";
import { checkedStream, digestOf, refusalOf, shaDiffers, sizeDiffers } from "./attachment-files.ts";
import type { FileStore } from "./attachments.ts";
import { guarded } from "./constraint-errors.ts";
import type { Call, SystemContext } from "./context.ts";
import { checkRefusal } from "./refusals.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller, settleCreate, settleReplay } from "./settle.ts";

// Multipart uploads (docs/attachments.md "Large files"): a file of up to 5 GiB sent in parts, each
// its own request, into one R2 multipart upload. Started with the file's size, SHA-256 and part
// size (quota checked, the uploads under way counted); each part streamed into R2 through the
// check every upload passes (its length, its own SHA-256), and kept once whole; listed, so a
// client that lost a part resends it; completed (every part there, the object assembled by R2,
// then read back once to check the whole file's SHA-256 and tell its type from its first bytes,
// then recorded with attachment.created, quota checked again), or aborted. Nothing of an upload is
// a record or an event until it completes.

interface OnUpload {
  parent: AttachmentParent;
  parentId: string;
  id: string;
  store: FileStore;
}

const parentNoun = (parent: AttachmentParent) => RESOURCES[parent].nouns[0];
const uploadNotFound = () => notFound("upload");

/**
 * An upload as the API answers it: where its bytes go stays in the Worker. Its fields in one order,
 * whatever order the row came in (a replayed start's comes from jsonb).
 */
function publicUpload(parent: AttachmentParent, upload: uploads.UploadRow & uploads.UploadStorage, parts: uploads.UploadedPart[]) {
  const { id, name, size, sha256, partSize, createdAt, updatedAt, parentId } = upload;
  return {
    ...{ id, name, size, sha256, partSize, createdAt, updatedAt },
    [`${parent}Id`]: parentId,
    partCount: partCountOf(upload.size, upload.partSize),
    parts: parts.map(({ partNumber, size, sha256 }) => ({ partNumber, size, sha256 })),
  };
}
export type PublicUpload = ReturnType<typeof publicUpload>;

export interface StartInput {
  parent: AttachmentParent;
  parentId: string;
  name: string;
  size: number;
  sha256: string;
  partSize: number;
  store: FileStore;
}

/**
 * Starts an upload: refused before R2 is asked (no key, no scope, no such record, too many parts,
 * past the quota with the uploads under way); R2's multipart upload begun, then recorded with the
 * same checks, or aborted.
 */
export async function startAttachmentUpload({ ctx, input }: Call<StartInput>): Promise<{ upload: PublicUpload; replayed: boolean }> {
  const { parent, parentId, store } = input;
  const check = await statements.checkUpload(ctx.db, ctx.actor, parent, parentId, ctx.idempotency);
  settleCaller(check.caller, ctx, attachmentScopes(parent).manage);
  // A retried start: the first one's upload again (its size is held once), before R2 is asked.
  if (check.replay) return replayedStart(ctx, parent, { ...check.replay, record: check.replay.response, changeVersion: null });
  if (!check.parentFound) throw notFound(parentNoun(parent));
  if (partCountOf(input.size, input.partSize) > MAX_PARTS)
    throw new DomainError(
      "invalid_field",
      `a file of ${input.size} bytes in parts of ${input.partSize} takes more than ${MAX_PARTS} parts`,
      {
        field: "partSize",
      },
    );
  if (check.usedBytes + check.reservedBytes + input.size > check.quotaBytes) throw checkRefusal("size", "attachment");
  const id = uuidv7();
  const objectKey = objectKeyOf(check.orgId!, id);
  const multipart = await store.bucket.createMultipartUpload(objectKey);
  let kept = false;
  try {
    const values = { id, parentId, name: input.name, size: input.size, sha256: input.sha256, partSize: input.partSize };
    const storage = { objectKey, r2UploadId: multipart.uploadId };
    const outcome = await uploads.startUpload(ctx.db, ctx.actor, parent, { ...values, ...storage }, ctx.idempotency);
    settleCaller(outcome.caller, ctx, attachmentScopes(parent).manage);
    // A concurrent start with the same key won: its upload is the answer, this R2 upload is let go.
    if (outcome.replay) return replayedStart(ctx, parent, outcome.replay);
    if (!outcome.parentFound) throw notFound(parentNoun(parent));
    if (!outcome.fits || !outcome.upload) throw checkRefusal("size", "attachment");
    kept = true;
    return { upload: publicUpload(parent, outcome.upload, []), replayed: false };
  } finally {
    if (!kept) await multipart.abort().catch(() => {});
  }
}

/** The first answer to a start's Idempotency-Key (its upload as it was then, with no part), or 422 for another request. */
function replayedStart(ctx: Call<StartInput>["ctx"], parent: AttachmentParent, replay: Parameters<typeof settleReplay>[0]) {
  const { record } = settleReplay(replay, { ctx, idempotency: ctx.idempotency });
  return { upload: publicUpload(parent, record as uploads.UploadRow & uploads.UploadStorage, []), replayed: true };
}

/** The upload and the parts that arrived (read with the record's read scope). */
export async function getAttachmentUpload({ ctx, input }: Call<Omit<OnUpload, "store">>) {
  const found = await uploads.uploadOf(ctx.db, ctx.actor, input.parent, input.parentId, input.id, attachmentScopes(input.parent).read);
  settleCaller(found.caller, ctx, attachmentScopes(input.parent).read);
  if (!found.upload) throw uploadNotFound();
  return publicUpload(input.parent, found.upload, found.parts);
}

export interface PartInput extends OnUpload {
  partNumber: number;
  sha256: string;
  /** The request's Content-Length, if it said one. */
  declaredLength: number | null;
  body: ReadableStream<Uint8Array>;
}

/**
 * Part `partNumber`, streamed into R2's upload through the check: exactly the length its place
 * says (partSize, the last what is left), with the SHA-256 stated for it. Refused, it is not kept
 * (a part R2 took but the check refused is replaced when the part is sent again, or goes with the
 * upload's abort).
 */
export async function uploadAttachmentPart({ ctx, input }: Call<PartInput>) {
  const { parent, parentId, id, partNumber, store } = input;
  const scope = attachmentScopes(parent).manage;
  const found = await uploads.uploadOf(ctx.db, ctx.actor, parent, parentId, id, scope);
  settleCaller(found.caller, ctx, scope);
  const upload = found.upload;
  if (!upload) throw uploadNotFound();
  const count = partCountOf(upload.size, upload.partSize);
  if (partNumber > count)
    throw new DomainError("invalid_field", `this upload has ${count} parts: there is no part ${partNumber}`, { field: "partNumber" });
  const length = partLengthOf(upload.size, upload.partSize, partNumber);
  const what = `part ${partNumber}`;
  if (input.declaredLength !== null && input.declaredLength !== length) throw sizeDiffers(length, input.declaredLength, what);
  const stream = checkedStream(input.body, length);
  const multipart = store.bucket.resumeMultipartUpload(upload.objectKey, upload.r2UploadId);
  let etag: string;
  try {
    const [sent, passed] = await Promise.all([multipart.uploadPart(partNumber, stream.readable), stream.checked()]);
    if (passed.received !== length) throw sizeDiffers(length, passed.received, what);
    if (passed.sha256 !== input.sha256) throw shaDiffers(what);
    etag = sent.etag;
  } catch (error) {
    throw refusalOf(error, stream.progress(), length, what);
  }
  const part = { partNumber, size: length, sha256: input.sha256, etag };
  const recorded = await uploads.recordPart(ctx.db, ctx.actor, parent, parentId, id, part);
  settleCaller(recorded.caller, ctx, scope);
  // Aborted or completed meanwhile.
  if (!recorded.recorded) throw uploadNotFound();
  return { partNumber, size: length, sha256: input.sha256 };
}

/**
 * Completes the upload: refused while parts are missing (409 conflict, naming them; nothing
 * taken). Else the upload is taken (no second complete), R2 assembles the object, the Worker reads
 * it back once (its SHA-256 and its first bytes, never held whole), and the attachment is recorded
 * with attachment.created if the SHA-256 is the one stated and the quota still holds; refused
 * after the take, the object is deleted: nothing is kept.
 */
export async function completeAttachmentUpload({ ctx, input }: Call<OnUpload>) {
  const { parent, parentId, id, store } = input;
  const scope = attachmentScopes(parent).manage;
  const claim = await uploads.claimUpload(ctx.db, ctx.actor, parent, parentId, id, ctx.idempotency);
  settleCaller(claim.caller, ctx, scope);
  // A retried complete (its 201 lost): the attachment it made, again; or 422 for another request.
  if (claim.replay) return settleReplay(claim.replay, { ctx, idempotency: ctx.idempotency });
  if (!claim.found) throw uploadNotFound();
  if (claim.missing.length > 0 || !claim.upload)
    throw new DomainError("conflict", `parts ${claim.missing.join(", ")} have not arrived: send them, then complete`, {
      missingParts: claim.missing,
    });
  const upload = claim.upload;
  const multipart = store.bucket.resumeMultipartUpload(upload.objectKey, upload.r2UploadId);
  let assembled = false;
  let kept = false;
  try {
    await multipart.complete(claim.parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag })));
    assembled = true;
    const object = await store.bucket.get(upload.objectKey);
    if (!object) throw new Error(`R2 has no object ${upload.objectKey} after completing its upload`);
    if (object.size !== upload.size) throw sizeDiffers(upload.size, object.size, "the file");
    const whole = await digestOf(object.body, upload.size);
    if (whole.sha256 !== upload.sha256) throw shaDiffers("the file");
    const values = {
      parentId,
      name: upload.name,
      size: upload.size,
      sha256: upload.sha256,
      contentType: detectContentType(whole.head),
      objectKey: upload.objectKey,
    };
    const outcome = await guarded(statements.createAttachment(ctx.db, ctx.actor, parent, values, ctx.idempotency));
    const result = settleCreate(outcome, { ctx, scope, noun: "attachment", parentNoun: parentNoun(parent), idempotency: ctx.idempotency });
    kept = !result.replayed;
    publishAfterCommit(ctx, result);
    return result;
  } finally {
    if (!kept) {
      if (assembled) await store.bucket.delete(upload.objectKey).catch(() => {});
      else await multipart.abort().catch(() => {});
    }
  }
}

/** Aborts the upload: its row and parts gone, then R2's upload aborted (its parts let go). */
export async function abortAttachmentUpload({ ctx, input }: Call<OnUpload>) {
  const { parent, store } = input;
  const gone = await uploads.abortUpload(ctx.db, ctx.actor, parent, input.parentId, input.id);
  settleCaller(gone.caller, ctx, attachmentScopes(parent).manage);
  if (!gone.upload) throw uploadNotFound();
  const multipart = store.bucket.resumeMultipartUpload(gone.upload.objectKey, gone.upload.r2UploadId);
  // If R2 fails now, its own rule aborts uploads left incomplete (a week, by default).
  await multipart.abort().catch(() => {});
  return publicUpload(parent, gone.upload, []);
}

/** The sweep's: uploads untouched for 24 hours, at most `limit`, taken and aborted in R2. Answers how many. */
export async function abortAbandonedUploads(ctx: Pick<SystemContext, "db">, bucket: R2Bucket, limit: number): Promise<number> {
  if (limit <= 0) return 0;
  const taken = await uploads.takeAbandonedUploads(ctx.db, UPLOAD_ABANDONED_SECONDS, limit);
  await Promise.all(
    taken.map((u) =>
      bucket
        .resumeMultipartUpload(u.objectKey, u.r2UploadId)
        .abort()
        .catch(() => {}),
    ),
  );
  return taken.length;
}
