import * as statements from "../db/statements/attachments.ts";
import { listRecords } from "../db/statements/engine/read.ts";
import { RULES } from "../db/statements/engine/rules.ts";
import { attachmentScopes, DOWNLOAD_URL_SECONDS, INLINE_TYPES, objectKeyOf, type AttachmentParent } from "../domain/attachments.ts";
import { NO_REQUEST } from "../domain/audit.ts";
import { downloadHolds, signDownload } from "../domain/crypto/download-url.ts";
import { DomainError, notFound } from "../domain/errors.ts";
import { uuidv7 } from "../domain/ids.ts";
import type { PageRequest } from "../domain/paging.ts";
import { RESOURCES } from "../domain/resources.ts";
import { storeFile } from "./attachment-files.ts";
import { guarded } from "./constraint-errors.ts";
import type { Call, ServiceContext, SystemContext } from "./context.ts";
import { checkRefusal } from "./refusals.ts";
import { publishAfterCommit } from "./rooms.ts";
import { settleCaller, settleCreate, settleDelete } from "./settle.ts";

export type { AttachmentRecord } from "../db/statements/attachments.ts";

// Files on records (docs/attachments.md): uploaded by streaming into R2 and then recorded (with
// the changeVersion bump and attachment.created, in one statement), listed and read with the
// record's read scope, deleted with its manage scope. A file's bytes are fetched through a signed
// link that expires. Deleted rows leave their object keys to remove from R2 after the commit
// (removeObjects), retried by the sweep until R2 has let them go.

/** Where the files are: the R2 bucket, and the secret download links are signed with. */
export interface FileStore {
  bucket: R2Bucket;
  signingSecret: string;
}

interface OnRecord {
  parent: AttachmentParent;
  parentId: string;
}

const parentNoun = (parent: AttachmentParent) => RESOURCES[parent].nouns[0];

export interface UploadInput extends OnRecord {
  name: string;
  size: number;
  sha256: string;
  body: ReadableStream<Uint8Array>;
  store: FileStore;
}

/**
 * Streams the file into R2, then records it. Refused before a byte is stored: no key, no scope, no
 * such record, over the quota. Refused after: a body not of the size or SHA-256 stated (its object
 * deleted); a record deleted meanwhile, or the quota filled meanwhile (the object deleted too).
 */
export async function uploadAttachment({ ctx, input }: Call<UploadInput>) {
  const { parent, parentId, store } = input;
  const scope = attachmentScopes(parent).manage;
  const check = await statements.checkUpload(ctx.db, ctx.actor, parent, parentId);
  settleCaller(check.caller, ctx, scope);
  if (!check.parentFound) throw notFound(parentNoun(parent));
  if (check.usedBytes + check.reservedBytes + input.size > check.quotaBytes) throw checkRefusal("size", "attachment");
  const objectKey = objectKeyOf(check.orgId!, uuidv7());
  const { contentType } = await storeFile(store.bucket, objectKey, input.body, input);
  let kept = false;
  try {
    const outcome = await guarded(
      statements.createAttachment(
        ctx.db,
        ctx.actor,
        parent,
        { parentId, name: input.name, size: input.size, sha256: input.sha256, contentType, objectKey },
        ctx.idempotency,
      ),
    );
    const result = settleCreate(outcome, { ctx, scope, noun: "attachment", parentNoun: parentNoun(parent), idempotency: ctx.idempotency });
    // A replay answers the first upload's record: this one's object is not needed.
    kept = !result.replayed;
    publishAfterCommit(ctx, result);
    return result;
  } finally {
    if (!kept) await store.bucket.delete(objectKey).catch(() => {});
  }
}

export async function listAttachments({ ctx, input }: Call<OnRecord & { page: PageRequest }>) {
  const resource = statements.attachmentResources[input.parent];
  const outcome = await listRecords(ctx.db, ctx.actor, resource, { page: input.page, filters: {}, parentId: input.parentId });
  settleCaller(outcome.caller, ctx, resource.readScope);
  if (!outcome.parentFound) throw notFound(parentNoun(input.parent));
  return { records: outcome.records, count: outcome.count, hasMore: outcome.hasMore, end: outcome.end };
}

/** The attachment, with a download link signed for DOWNLOAD_URL_SECONDS (inline only for images and PDF, when asked). */
export async function getAttachment({ ctx, input }: Call<OnRecord & { id: string; inline: boolean; store: FileStore; origin: string }>) {
  const resource = statements.attachmentResources[input.parent];
  const outcome = await statements.getAttachment(ctx.db, ctx.actor, input.parent, input.parentId, input.id);
  settleCaller(outcome.caller, ctx, resource.readScope);
  const record = outcome.record;
  if (!record) throw notFound("attachment");
  const expires = Math.floor(Date.now() / 1000) + DOWNLOAD_URL_SECONDS;
  const inline = input.inline && INLINE_TYPES.has(record.contentType);
  const signature = await signDownload(input.store.signingSecret, { orgId: record.orgId, attachmentId: record.id, expires, inline });
  const url = new URL(`/v1/attachments/${record.id}/content`, input.origin);
  url.search = new URLSearchParams({ expires: String(expires), ...(inline ? { inline: "true" } : {}), signature }).toString();
  return { ...record, downloadUrl: url.toString(), downloadExpiresAt: new Date(expires * 1000).toISOString() };
}

export async function deleteAttachment({ ctx, input }: Call<OnRecord & { id: string; store: FileStore }>) {
  const resource = statements.attachmentResources[input.parent];
  const outcome = await guarded(
    statements.deleteAttachment(ctx.db, ctx.actor, input.parent, input.parentId, input.id, ctx.request ?? NO_REQUEST),
    { deleting: true },
  );
  const result = settleDelete(outcome, {
    ctx,
    scope: resource.manageScope,
    noun: "attachment",
    rules: { [RULES.on_parent]: () => notFound("attachment") },
  });
  publishAfterCommit(ctx, result);
  ctx.defer(() => removeObjects({ db: ctx.db }, input.store.bucket));
  return result;
}

const linkRefused = () => new DomainError("not_found", "this download link is not valid, or has expired: ask for the attachment again");

/** A file's bytes, by a signed link: refused when the signature does not match or the link has expired. */
export async function downloadAttachment({
  ctx,
  input,
}: Call<{ id: string; expires: number; inline: boolean; signature: string; store: FileStore }, Pick<ServiceContext, "db">>) {
  const file = await statements.downloadOf(ctx.db, input.id);
  if (!file) throw linkRefused();
  const grant = { orgId: file.orgId, attachmentId: input.id, expires: input.expires, inline: input.inline };
  if (!(await downloadHolds(input.store.signingSecret, grant, input.signature))) throw linkRefused();
  const object = await input.store.bucket.get(file.objectKey);
  if (!object) throw linkRefused();
  return { ...file, inline: input.inline && INLINE_TYPES.has(file.contentType), body: object.body };
}

/**
 * Deletes from R2 the objects of attachments deleted (the oldest first, at most `limit`), and
 * forgets those R2 let go; the rest stay for the next try (the sweep's). Answers how many went.
 */
export async function removeObjects(ctx: Pick<SystemContext, "db">, bucket: R2Bucket, limit = 100): Promise<number> {
  const keys = await statements.pendingRemovals(ctx.db, limit);
  if (keys.length === 0) return 0;
  await bucket.delete(keys);
  await statements.forgetRemovals(ctx.db, keys);
  return keys.length;
}
