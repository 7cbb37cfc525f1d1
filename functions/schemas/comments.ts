import { z } from "@hono/zod-openapi";
import { COMMENT_MAX_LENGTH } from "../../domain/records.ts";
import type { CommentRecord } from "../../services/comments.ts";
import { publicRecord, externalIdFields, recordFields, noNul, Uuid } from "./common.ts";
import { eventFields } from "./events.ts";

const Body = z
  .string()
  .min(1)
  .max(COMMENT_MAX_LENGTH)
  .refine(noNul, "must not contain NUL characters")
  .openapi({
    description: `Plain text or Markdown, 1 to ${COMMENT_MAX_LENGTH} characters, stored as sent.`,
    example: "The van is booked for 7:30; the driver calls ahead.",
  });

export const CommentSchema = publicRecord<CommentRecord>()(
  z
    .object({
      ...recordFields,
      ...externalIdFields.record,
      taskId: Uuid,
      projectId: Uuid.openapi({ description: "The task's project." }),
      body: z.string().openapi({ example: "The van is booked for 7:30; the driver calls ahead." }),
      author: eventFields.actor.openapi({ description: "Who wrote it: the API key or the person who made the call." }),
    })
    .openapi("Comment"),
);

export const CreateCommentSchema = z.strictObject({ ...externalIdFields.create, body: Body }).openapi("CreateComment");

/** PUT /v1/comments/by-external-id/{externalId}: the body names the task (a new comment is written on it; an existing one must be on it). */
export const UpsertCommentSchema = z.strictObject({ taskId: CommentSchema.shape.taskId, body: Body }).openapi("UpsertComment");

export const UpdateCommentSchema = z.strictObject({ ...externalIdFields.update, body: Body.optional() }).openapi("UpdateComment");
