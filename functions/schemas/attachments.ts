import { z } from "@hono/zod-openapi";
import {
  ATTACHMENT_NAME_MAX_LENGTH,
  MAX_ATTACHMENT_BYTES,
  MAX_MULTIPART_BYTES,
  MAX_PART_BYTES,
  MAX_PARTS,
  MIN_PART_BYTES,
} from "../../domain/attachments.ts";
import type { AttachmentRecord } from "../../services/attachments.ts";
import { BooleanQuery, noNul, pageQuery, publicRecord, recordFields, Timestamp, Uuid } from "./common.ts";
import { eventFields } from "./events.ts";

// An attachment: a file on a task, comment, risk, issue or financial entry (docs/attachments.md).

const parentId = (noun: string) => Uuid.nullable().openapi({ description: `The ${noun} it is attached to, if that is its record.` });

export const AttachmentSchema = publicRecord<AttachmentRecord>()(
  z
    .object({
      ...recordFields,
      taskId: parentId("task"),
      commentId: parentId("comment"),
      riskId: parentId("risk"),
      issueId: parentId("issue"),
      financialEntryId: parentId("financial entry"),
      name: z.string().openapi({ example: "asbestos-survey.pdf" }),
      size: z.number().int().openapi({ description: "In bytes.", example: 482113 }),
      sha256: z.string().openapi({
        description: "The SHA-256 of the bytes, in lower-case hex.",
        example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      }),
      contentType: z.string().openapi({
        description: "What opsroom found the file to be, from its first bytes (never the client's word).",
        example: "application/pdf",
      }),
      uploader: eventFields.actor.openapi({
        description: "Who uploaded it: the API key, the person or the application that made the call.",
      }),
    })
    .openapi("Attachment"),
);

export const AttachmentWithLinkSchema = AttachmentSchema.extend({
  downloadUrl: z.string().openapi({ description: "The file's bytes: a signed link, valid until downloadExpiresAt (15 minutes)." }),
  downloadExpiresAt: Timestamp,
}).openapi("AttachmentWithLink");

const Sha256 = z
  .string()
  .length(64)
  .regex(/^[0-9a-f]{64}$/, "must be 64 lower-case hex digits")
  .openapi({ description: "The SHA-256 of the body, in lower-case hex: a body with another is refused." });

const FileName = z
  .string()
  .trim()
  .min(1)
  .max(ATTACHMENT_NAME_MAX_LENGTH)
  .refine(noNul, "must not contain NUL characters")
  .refine((n) => !/[\\/\r\n]/.test(n), "must not contain slashes or line breaks")
  .openapi({ description: "The file's name.", example: "asbestos-survey.pdf" });

/** POST /v1/<records>/{id}/attachments: the body is the file's bytes; these say what it is. */
export const UploadQuery = z.strictObject({
  name: FileName,
  size: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_ATTACHMENT_BYTES)
    .openapi({
      description: `The body's length in bytes, at most ${MAX_ATTACHMENT_BYTES} (100 MiB): a body of another length is refused.`,
      // A coerced number reads as optional to the document; a missing size is 400 missing_field.
      param: { required: true },
      type: "integer",
      minimum: 0,
      maximum: MAX_ATTACHMENT_BYTES,
    }),
  sha256: Sha256,
});

export const AttachmentListQuery = z.strictObject({ ...pageQuery });

export const AttachmentGetQuery = z.strictObject({
  inline: BooleanQuery.optional().openapi({
    description: "true: the link opens an image or PDF in the browser; any other file still downloads.",
    type: "string",
    enum: ["true", "false"],
  }),
});

export const AttachmentParams = (noun: string) =>
  z.object({
    id: Uuid.openapi({ param: { name: "id", in: "path" }, description: `The ${noun}'s id.` }),
    attachmentId: Uuid.openapi({ param: { name: "attachmentId", in: "path" }, description: "The attachment's id." }),
  });

export const RecordParams = (noun: string) =>
  z.object({ id: Uuid.openapi({ param: { name: "id", in: "path" }, description: `The ${noun}'s id.` }) });

export const DownloadParams = z.object({
  id: Uuid.openapi({ param: { name: "id", in: "path" }, description: "The attachment's id." }),
});

export const DownloadQuery = z.strictObject({
  expires: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 40)
    .openapi({
      description: "When the link stops working, in seconds since the epoch.",
      param: { required: true },
      type: "integer",
      minimum: 0,
      maximum: 2 ** 40,
    }),
  inline: BooleanQuery.optional().openapi({ type: "string", enum: ["true", "false"] }),
  signature: z
    .string()
    .length(64)
    .regex(/^[0-9a-f]{64}$/)
    .openapi({ description: "The link's signature." }),
});

/** The file's bytes. */
export const FileSchema = z
  .string()
  .openapi({ format: "binary", description: "The file's bytes.", example: "Site notes\nFiled against the task.\n" });

// Multipart uploads (docs/attachments.md "Large files").

const partSizeOf = (what: string, max: number, min = 1) =>
  z.coerce
    .number()
    .int()
    .min(min)
    .max(max)
    .openapi({ description: what, param: { required: true }, type: "integer", minimum: min, maximum: max });

/** POST /v1/<records>/{id}/attachment-uploads: the file to come, in parts. */
export const StartUploadBody = z.strictObject({
  name: FileName,
  size: z
    .number()
    .int()
    .min(1)
    .max(MAX_MULTIPART_BYTES)
    .openapi({
      description: `The whole file's length in bytes, at most ${MAX_MULTIPART_BYTES} (5 GiB).`,
      example: 157286400,
    }),
  sha256: Sha256.openapi({ description: "The whole file's SHA-256, in lower-case hex: checked when the upload completes." }),
  partSize: z
    .number()
    .int()
    .min(MIN_PART_BYTES)
    .max(MAX_PART_BYTES)
    .openapi({
      description: `The length of every part but the last (which has what is left), from ${MIN_PART_BYTES} (5 MiB) to ${MAX_PART_BYTES} (100 MiB); at most ${MAX_PARTS} parts.`,
      example: 16777216,
    }),
});

const UploadedPartSchema = z
  .object({
    partNumber: z.number().int().openapi({ example: 1 }),
    size: z.number().int().openapi({ example: 16777216 }),
    sha256: z.string().openapi({ example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }),
  })
  .openapi("AttachmentUploadPart");

export const UploadSchema = z
  .object({
    id: Uuid,
    taskId: Uuid.optional(),
    commentId: Uuid.optional(),
    riskId: Uuid.optional(),
    issueId: Uuid.optional(),
    financialEntryId: Uuid.optional(),
    name: z.string().openapi({ example: "site-survey.mp4" }),
    size: z.number().int().openapi({ example: 157286400 }),
    sha256: z.string().openapi({ example: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }),
    partSize: z.number().int().openapi({ example: 16777216 }),
    partCount: z.number().int().openapi({ description: "How many parts the file takes.", example: 10 }),
    parts: z.array(UploadedPartSchema).openapi({ description: "The parts that arrived whole, in order: send the others." }),
    createdAt: Timestamp,
    updatedAt: Timestamp.openapi({ description: "When a part last arrived: an upload untouched 24 hours is aborted." }),
  })
  .openapi("AttachmentUpload");

export const UploadParams = (noun: string) =>
  z.object({
    id: Uuid.openapi({ param: { name: "id", in: "path" }, description: `The ${noun}'s id.` }),
    uploadId: Uuid.openapi({ param: { name: "uploadId", in: "path" }, description: "The upload's id." }),
  });

export const PartParams = (noun: string) =>
  UploadParams(noun).extend({
    partNumber: partSizeOf("The part's place, from 1.", MAX_PARTS).openapi({ param: { name: "partNumber", in: "path" } }),
  });

export const PartQuery = z.strictObject({
  sha256: Sha256.openapi({ description: "This part's SHA-256, in lower-case hex: a part with another is refused." }),
});
