import type { Context } from "hono";
import { MAX_PART_BYTES, type AttachmentParent } from "../../domain/attachments.ts";
import { RESOURCES } from "../../domain/resources.ts";
import {
  abortAttachmentUpload,
  completeAttachmentUpload,
  getAttachmentUpload,
  startAttachmentUpload,
  uploadAttachmentPart,
} from "../../services/attachment-uploads.ts";
import type { FileStore } from "../../services/attachments.ts";
import type { AppEnv } from "../env.ts";
import { serviceContext } from "../http/context.ts";
import { recordEnvelope, reply, writeReply } from "../http/envelope.ts";
import { RESPONSE_HEADERS } from "../http/headers.ts";
import { defineRoute, type AnyRoute } from "../http/registry.ts";
import { takeIdempotencyKey } from "../middleware/json-body.ts";
import { refuse } from "../middleware/refuse.ts";
import {
  AttachmentSchema,
  PartParams,
  PartQuery,
  RecordParams,
  StartUploadBody,
  UploadParams,
  UploadSchema,
} from "../schemas/attachments.ts";

// Multipart uploads (docs/attachments.md "Large files"): a file past one request's 100 MiB, to
// 5 GiB, under each kind of record that holds files, with the record's scopes: start, the parts
// (each its own request), the upload with the parts that arrived (to resume), complete, abort.

const TAG = "Attachments";

/** What the file routes of a record kind share (functions/routes/attachments.ts). */
export interface UploadParts {
  parent: AttachmentParent;
  one: string;
  /** The record's scope family: its read and manage scopes are the files'. */
  scopes: (typeof RESOURCES)[AttachmentParent]["scopes"];
  operationIds: { startUpload: string; getUpload: string; uploadPart: string; completeUpload: string; abortUpload: string };
  uploads: `/v1/${string}`;
  upload: `/v1/${string}`;
}

type Store = (c: Context<AppEnv>) => FileStore;

function startUploadRoute({ parent, one, operationIds, scopes, uploads }: UploadParts, fileStore: Store) {
  return defineRoute({
    method: "post",
    path: uploads,
    operationId: operationIds.startUpload,
    scope: `${scopes}.manage`,
    tag: TAG,
    tool: false,
    summary: `Start a multipart upload of a file to a ${one} (up to 5 GiB, sent in parts)`,
    description:
      "States the whole file: name, size, SHA-256, and the part size (every part but the last; 5 to 100 MiB, at most 10,000 parts). " +
      "Then PUT each part, GET the upload to see which arrived, and POST .../complete. The size counts against the quota from now until the upload ends " +
      "(past it: 413 payload_too_large). An upload untouched 24 hours is aborted. " +
      "An Idempotency-Key replays the first answer: a retried start is the same upload, its size held once.",
    params: RecordParams(one),
    body: StartUploadBody,
    errors: ["idempotency_mismatch", "unavailable"],
    response: {
      status: 201,
      schema: recordEnvelope(UploadSchema),
      description: "The upload, with no part yet.",
      headers: ["Idempotent-Replayed"],
    },
    verb: startAttachmentUpload,
    async handler(c, { params, body }) {
      const input = { parent, parentId: params.id, ...body, store: fileStore(c) };
      const { upload, replayed } = await startAttachmentUpload({ ctx: serviceContext(c), input });
      return reply(upload, "upload started", replayed ? { [RESPONSE_HEADERS.idempotentReplayed.name]: "true" } : {});
    },
  });
}

function getUploadRoute({ parent, one, operationIds, scopes, upload }: UploadParts) {
  return defineRoute({
    method: "get",
    path: upload,
    operationId: operationIds.getUpload,
    scope: `${scopes}.read`,
    tag: TAG,
    tool: false,
    summary: `Fetch a multipart upload to a ${one}, with the parts that arrived (to resume it)`,
    params: UploadParams(one),
    response: { schema: recordEnvelope(UploadSchema), description: "The upload and its parts." },
    verb: getAttachmentUpload,
    async handler(c, { params }) {
      const input = { parent, parentId: params.id, id: params.uploadId };
      return reply(await getAttachmentUpload({ ctx: serviceContext(c), input }), "upload");
    },
  });
}

function uploadPartRoute({ parent, one, operationIds, scopes, upload }: UploadParts, fileStore: Store) {
  return defineRoute({
    method: "put",
    path: `${upload}/parts/{partNumber}`,
    operationId: operationIds.uploadPart,
    scope: `${scopes}.manage`,
    tag: TAG,
    tool: false,
    summary: `Send one part of a multipart upload to a ${one} (the body is the part's bytes)`,
    description:
      "The body is the part's bytes, streamed into storage: exactly the upload's partSize (the last part: what is left), with the SHA-256 the query states. " +
      "Another length or hash is refused (400 invalid_field) and the part is not kept; sending a part again replaces it.",
    params: PartParams(one),
    query: PartQuery,
    fileBody: { limit: MAX_PART_BYTES, description: "The part's bytes." },
    errors: ["unavailable"],
    response: {
      schema: recordEnvelope(UploadSchema.shape.parts.element),
      description: "The part, kept.",
    },
    verb: uploadAttachmentPart,
    async handler(c, { params, query }) {
      const declared = c.req.header("content-length");
      const input = {
        parent,
        parentId: params.id,
        id: params.uploadId,
        partNumber: params.partNumber,
        sha256: query.sha256,
        declaredLength: declared === undefined ? null : Number(declared),
        body: c.req.raw.body ?? new Blob([]).stream(),
        store: fileStore(c),
      };
      return reply(await uploadAttachmentPart({ ctx: serviceContext(c), input }), "part kept");
    },
  });
}

function completeUploadRoute({ parent, one, operationIds, scopes, upload }: UploadParts, fileStore: Store) {
  return defineRoute({
    method: "post",
    path: `${upload}/complete`,
    operationId: operationIds.completeUpload,
    scope: `${scopes}.manage`,
    tag: TAG,
    tool: false,
    summary: `Complete a multipart upload to a ${one}: the file becomes an attachment`,
    description:
      "Every part must have arrived (else 409 conflict, `missingParts` naming them). The file is assembled and read once: its SHA-256 must be the one stated " +
      "(else 400 invalid_field `sha256`, and nothing is kept) and its content type is read from its first bytes. The quota is checked again. " +
      "attachment.created follows, as for a single upload. An Idempotency-Key replays the first answer: a complete retried after its answer was lost " +
      "is the same attachment (without the key, the upload is gone: 404).",
    params: UploadParams(one),
    errors: ["conflict", "payload_too_large", "idempotency_mismatch", "unavailable"],
    response: {
      status: 201,
      schema: recordEnvelope(AttachmentSchema),
      description: "The attachment.",
      headers: ["ETag", "Idempotent-Replayed"],
    },
    verb: completeAttachmentUpload,
    async handler(c, { params }) {
      // No body: the request is its path (the upload).
      const keyProblem = takeIdempotencyKey(c, "");
      if (keyProblem) await refuse(c, keyProblem);
      const input = { parent, parentId: params.id, id: params.uploadId, store: fileStore(c) };
      return writeReply(await completeAttachmentUpload({ ctx: serviceContext(c), input }), "attachment created");
    },
  });
}

function abortUploadRoute({ parent, one, operationIds, scopes, upload }: UploadParts, fileStore: Store) {
  return defineRoute({
    method: "delete",
    path: upload,
    operationId: operationIds.abortUpload,
    scope: `${scopes}.manage`,
    tag: TAG,
    tool: false,
    summary: `Abort a multipart upload to a ${one} (its parts are let go)`,
    params: UploadParams(one),
    errors: ["unavailable"],
    response: { schema: recordEnvelope(UploadSchema), description: "The upload as it was." },
    verb: abortAttachmentUpload,
    async handler(c, { params }) {
      const input = { parent, parentId: params.id, id: params.uploadId, store: fileStore(c) };
      return reply(await abortAttachmentUpload({ ctx: serviceContext(c), input }), "upload aborted");
    },
  });
}

export const uploadRoutesOf = (parts: UploadParts, fileStore: Store): AnyRoute[] => [
  startUploadRoute(parts, fileStore),
  getUploadRoute(parts),
  uploadPartRoute(parts, fileStore),
  completeUploadRoute(parts, fileStore),
  abortUploadRoute(parts, fileStore),
];
