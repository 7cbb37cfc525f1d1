import type { Context } from "hono";
import { ATTACHMENT_PARENTS, MAX_ATTACHMENT_BYTES, type AttachmentParent } from "../../domain/attachments.ts";
import { DomainError } from "../../domain/errors.ts";
import { pageRequest } from "../../domain/paging.ts";
import { RESOURCES } from "../../domain/resources.ts";
import {
  deleteAttachment,
  downloadAttachment,
  getAttachment,
  listAttachments,
  uploadAttachment,
  type FileStore,
} from "../../services/attachments.ts";
import type { AppEnv } from "../env.ts";
import { settingsOf } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { listEnvelope, listReply, recordEnvelope, recordReply, writeReply } from "../http/envelope.ts";
import { defineRoute, type AnyRoute } from "../http/registry.ts";
import { takeIdempotencyKey } from "../middleware/json-body.ts";
import { refuse } from "../middleware/refuse.ts";
import {
  AttachmentGetQuery,
  AttachmentListQuery,
  AttachmentParams,
  AttachmentSchema,
  AttachmentWithLinkSchema,
  DownloadParams,
  DownloadQuery,
  FileSchema,
  RecordParams,
  UploadQuery,
} from "../schemas/attachments.ts";
import { contentDispositionOf, DOWNLOAD_CSP } from "./attachment-headers.ts";
import { uploadRoutesOf } from "./attachment-uploads.ts";

// Files on records (docs/attachments.md): under each kind of record that holds them, a list, an
// upload, one attachment (with a signed download link) and its delete, with the record's scopes;
// and the download itself, whose signed link is its authority.

export const TAG = "Attachments";

/** Where files are kept, or 503 when the Worker has no bucket or nothing to sign links with. */
function fileStore(c: Context<AppEnv>): FileStore {
  const files = settingsOf(c.env).files;
  if (!c.env.FILES || !files) throw new DomainError("unavailable", "file storage is not configured on this server");
  return { bucket: c.env.FILES, signingSecret: files.signingSecret };
}

const capital = (type: string) => type[0]!.toUpperCase() + type.slice(1);

/** The operationIds of a record kind's file routes (the MCP server's file tools find their routes by them). */
export function attachmentOperationIds(parent: AttachmentParent) {
  const Name = capital(parent);
  return {
    list: `list${Name}Attachments`,
    upload: `upload${Name}Attachment`,
    get: `get${Name}Attachment`,
    delete: `delete${Name}Attachment`,
    startUpload: `start${Name}AttachmentUpload`,
    getUpload: `get${Name}AttachmentUpload`,
    uploadPart: `upload${Name}AttachmentPart`,
    completeUpload: `complete${Name}AttachmentUpload`,
    abortUpload: `abort${Name}AttachmentUpload`,
  };
}

/** What each route of a record kind's files says of it. */
function partsOf(parent: AttachmentParent) {
  const { nouns, path, scopes } = RESOURCES[parent];
  const collection = `/v1/${path}/{id}/attachments` as const;
  const operationIds = attachmentOperationIds(parent);
  const uploads = `/v1/${path}/{id}/attachment-uploads` as const;
  return {
    parent,
    one: nouns[0],
    operationIds,
    scopes,
    collection,
    item: `${collection}/{attachmentId}` as const,
    uploads,
    upload: `${uploads}/{uploadId}` as const,
  };
}
type Parts = ReturnType<typeof partsOf>;

function listRoute({ parent, one, operationIds, scopes, collection }: Parts) {
  return defineRoute({
    method: "get",
    path: collection,
    operationId: operationIds.list,
    scope: `${scopes}.read`,
    tag: TAG,
    summary: `List a ${one}'s attachments, oldest first`,
    params: RecordParams(one),
    query: AttachmentListQuery,
    response: { schema: listEnvelope(AttachmentSchema), description: `A page of the ${one}'s attachments.`, headers: ["Link"] },
    verb: listAttachments,
    async handler(c, { params, query }) {
      const page = pageRequest({ limit: query.limit, cursor: query.cursor }, {});
      const answer = await listAttachments({ ctx: serviceContext(c), input: { parent, parentId: params.id, page } });
      return listReply(c.req.url, answer, ["attachment", "attachments"]);
    },
  });
}

function uploadRoute({ parent, one, operationIds, scopes, collection }: Parts) {
  return defineRoute({
    method: "post",
    path: collection,
    operationId: operationIds.upload,
    scope: `${scopes}.manage`,
    tag: TAG,
    summary: `Attach a file to a ${one} (the body is the file; name, size and sha256 in the query)`,
    description:
      `The body is the file's bytes, streamed into storage, up to ${MAX_ATTACHMENT_BYTES} bytes (100 MiB). ` +
      "The query states its name, its size and its SHA-256: a body of another size or hash is refused (400 invalid_field) and nothing is kept. " +
      "Its content type is what opsroom finds from its first bytes, whatever Content-Type says. " +
      "Past the organisation's quota (GET /v1 `attachments`) it is 413 payload_too_large. An Idempotency-Key replays the first answer.",
    params: RecordParams(one),
    query: UploadQuery,
    fileBody: { limit: MAX_ATTACHMENT_BYTES, description: "The file's bytes, exactly `size` of them." },
    errors: ["idempotency_mismatch", "unavailable"],
    response: {
      status: 201,
      schema: recordEnvelope(AttachmentSchema),
      description: "The attachment.",
      headers: ["ETag", "Idempotent-Replayed"],
    },
    verb: uploadAttachment,
    async handler(c, { params, query }) {
      const declared = c.req.header("content-length");
      if (declared !== undefined && Number(declared) !== query.size)
        await refuse(
          c,
          new DomainError("invalid_field", `Content-Length is ${declared}, the size stated is ${query.size}`, { field: "size" }),
        );
      const keyProblem = takeIdempotencyKey(c, `${query.name}\n${query.size}\n${query.sha256}`);
      if (keyProblem) await refuse(c, keyProblem);
      const body = c.req.raw.body ?? new Blob([]).stream();
      const input = { parent, parentId: params.id, ...query, body, store: fileStore(c) };
      return writeReply(await uploadAttachment({ ctx: serviceContext(c), input }), "attachment created");
    },
  });
}

function getRoute({ parent, one, operationIds, scopes, item }: Parts) {
  return defineRoute({
    method: "get",
    path: item,
    operationId: operationIds.get,
    scope: `${scopes}.read`,
    tag: TAG,
    summary: `Fetch one of a ${one}'s attachments, with a download link valid 15 minutes`,
    params: AttachmentParams(one),
    query: AttachmentGetQuery,
    errors: ["unavailable"],
    response: {
      schema: recordEnvelope(AttachmentWithLinkSchema),
      description: "The attachment and its download link.",
      headers: ["ETag"],
    },
    verb: getAttachment,
    async handler(c, { params, query }) {
      const input = {
        parent,
        parentId: params.id,
        id: params.attachmentId,
        inline: query.inline ?? false,
        store: fileStore(c),
        origin: settingsOf(c.env).publicOrigin,
      };
      return recordReply(await getAttachment({ ctx: serviceContext(c), input }), "attachment");
    },
  });
}

function deleteRoute({ parent, one, operationIds, scopes, item }: Parts) {
  return defineRoute({
    method: "delete",
    path: item,
    operationId: operationIds.delete,
    scope: `${scopes}.manage`,
    tag: TAG,
    summary: `Remove one of a ${one}'s attachments (its file goes from storage after the answer)`,
    params: AttachmentParams(one),
    errors: ["unavailable"],
    response: { schema: recordEnvelope(AttachmentSchema), description: "The attachment as it was." },
    verb: deleteAttachment,
    async handler(c, { params }) {
      const input = { parent, parentId: params.id, id: params.attachmentId, store: fileStore(c) };
      const result = await deleteAttachment({ ctx: serviceContext(c), input });
      return { body: { success: true as const, version: "v1" as const, message: "attachment deleted", data: result.record } };
    },
  });
}

function routesOf(parent: AttachmentParent): AnyRoute[] {
  const parts = partsOf(parent);
  return [listRoute(parts), uploadRoute(parts), getRoute(parts), deleteRoute(parts), ...uploadRoutesOf(parts, fileStore)];
}

const download = defineRoute({
  method: "get",
  path: "/v1/attachments/{id}/content",
  operationId: "downloadAttachment",
  scope: "public",
  tag: TAG,
  summary: "A file's bytes, by the signed link an attachment's read gave",
  description:
    "No key: the link's signature is its authority, for 15 minutes. Served as a download (Content-Disposition: attachment) unless an image or PDF was asked for inline, " +
    "with X-Content-Type-Options: nosniff and a sandboxing Content-Security-Policy, so no uploaded file runs in this origin. A link expired or altered is 404.",
  params: DownloadParams,
  query: DownloadQuery,
  errors: ["unavailable"],
  response: {
    schema: FileSchema,
    mediaType: "application/octet-stream",
    description: "The file's bytes.",
    headers: ["Content-Disposition", "Content-Security-Policy"],
  },
  verb: downloadAttachment,
  async handler(c, { params, query }) {
    const input = { id: params.id, expires: query.expires, inline: query.inline ?? false, signature: query.signature, store: fileStore(c) };
    const file = await downloadAttachment({ ctx: { db: c.get("db") }, input });
    return {
      stream: file.body,
      headers: {
        "content-type": file.contentType,
        "content-length": String(file.size),
        "content-disposition": contentDispositionOf(file.name, file.inline),
        "content-security-policy": DOWNLOAD_CSP,
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
      },
    };
  },
});

export const attachmentRoutes: AnyRoute[] = [...ATTACHMENT_PARENTS.flatMap(routesOf), download];
